import CSQLite

/// A prepared statement of one `SQLiteConnection`, bound and stepped through the C API.
///
/// Values are bound and read by index, with no per-row set-up: the reads of `find` and `open`
/// are short, and anything more than SQLite's own work showed in their time.
final class SQLiteStatement {
    /// The `sqlite3_stmt*`. It holds no reference to its connection, which caches it: a
    /// connection closed with statements still alive is freed by SQLite when the last goes
    /// (`sqlite3_close_v2`).
    let handle: OpaquePointer

    init(_ handle: OpaquePointer) { self.handle = handle }

    deinit { sqlite3_finalize(handle) }

    /// Binds `arguments` in order, steps through every row handing each to `body`, and resets
    /// the statement whatever happens, so the next use starts clean. Every use binds every
    /// parameter, so the bindings are left for the next to replace (closing the connection, as
    /// the lock does, frees them).
    func eachRow(_ arguments: [SQLiteValue], _ body: (StatementRow) throws -> Void) throws {
        sqlite3_reset(handle)
        defer { sqlite3_reset(handle) }
        for (index, argument) in arguments.enumerated() { argument.bind(to: handle, at: CInt(index + 1)) }
        while true {
            let code = sqlite3_step(handle)
            if code == SQLITE_DONE { return }
            guard code == SQLITE_ROW else { throw SQLiteError(code: code, connection: sqlite3_db_handle(handle)) }
            try body(StatementRow(statement: handle))
        }
    }

    /// Runs the statement to its end with `arguments`, its rows (if any) unread.
    func run(_ arguments: [SQLiteValue]) throws {
        try eachRow(arguments) { _ in }
    }

    /// How many times SQLite compiled the statement again (a schema change, a flag pragma).
    var recompilations: CInt { sqlite3_stmt_status(handle, SQLITE_STMTSTATUS_REPREPARE, 0) }
}
