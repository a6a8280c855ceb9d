import CSQLite

/// A prepared INSERT bound and stepped through SQLite's C API, for loads of millions of rows.
///
/// An array of `SQLiteValue` a row is one allocation a row; at tens of millions of rows that
/// costs more than SQLite itself. This binds each value as it comes and reuses one prepared
/// statement per table. Used only inside a write transaction of the connection it was made on.
final class BulkStatement {
    private let handle: OpaquePointer
    private let connection: OpaquePointer
    private var index: Int32 = 0

    init(_ db: SQLiteConnection, sql: String) throws {
        connection = db.handle
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v3(connection, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard code == SQLITE_OK, let statement else {
            throw StoreError.database(reason: String(cString: sqlite3_errmsg(connection)))
        }
        handle = statement
    }

    deinit { sqlite3_finalize(handle) }

    func bind(_ value: Int64) {
        index += 1
        sqlite3_bind_int64(handle, index, value)
    }

    func bind(_ value: Int) { bind(Int64(value)) }

    func bind(_ value: Bool) { bind(Int64(value ? 1 : 0)) }

    func bind(_ value: Double) {
        index += 1
        sqlite3_bind_double(handle, index, value)
    }

    func bind(_ value: Int64?) {
        if let value { bind(value) } else { bindNull() }
    }

    func bind(_ value: String) {
        index += 1
        SQLiteValue.text(value).bind(to: handle, at: index)
    }

    func bindNull() {
        index += 1
        sqlite3_bind_null(handle, index)
    }

    /// Runs the statement with the values bound since the last run, then resets it.
    func run() throws {
        let code = sqlite3_step(handle)
        sqlite3_reset(handle)
        index = 0
        guard code == SQLITE_DONE else {
            throw StoreError.database(reason: String(cString: sqlite3_errmsg(connection)))
        }
    }

    /// The rowid the last successful INSERT on this connection made.
    var lastRowID: Int64 { sqlite3_last_insert_rowid(connection) }
}
