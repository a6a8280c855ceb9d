import CSQLite

/// A failure SQLite reported: its extended result code and its own message.
///
/// Never the SQL's arguments, which may hold patient data: SQLite's messages name tables,
/// columns and constraints, not values, so the message is safe to show and to log.
struct SQLiteError: Error, CustomStringConvertible {
    /// The extended result code (`SQLITE_CONSTRAINT_UNIQUE`…): connections are opened with
    /// extended codes on.
    let code: CInt
    /// `sqlite3_errmsg` at the time of the failure.
    let message: String

    /// The primary result code (`SQLITE_CONSTRAINT`…), what callers branch on.
    var primaryCode: CInt { code & 0xFF }

    var description: String { message }

    /// The connection's last error, with `code` as the call that failed returned it.
    init(code: CInt, connection: OpaquePointer?) {
        self.code = code
        message =
            connection.flatMap { sqlite3_errmsg($0).map { String(cString: $0) } }
            ?? sqlite3_errstr(code).map { String(cString: $0) } ?? "SQLite error \(code)"
    }

    init(code: CInt, message: String) {
        self.code = code
        self.message = message
    }
}
