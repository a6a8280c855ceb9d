import GRDB
import GRDBSQLite

/// One result row of a statement being stepped, read column by column from SQLite.
///
/// What `Row` offers the readers here (`text`, `optionalText`, an optional typed subscript), without what
/// a `Row` cursor costs: GRDB builds each cursor's row with a dictionary of its lower-cased
/// column names (about 9,000 instructions, and an `open` starts six cursors), which no reader
/// here uses; they read by index.
struct StatementRow {
    let statement: SQLiteStatement

    /// The text at `index`, whole (U+0000 and all, as `StoredText` reads it); empty for NULL.
    func text(_ index: Int) -> String { StoredText(sqliteStatement: statement, index: CInt(index)).string }

    /// The text at `index`, whole; nil for NULL.
    func optionalText(_ index: Int) -> String? {
        isNull(index) ? nil : text(index)
    }

    subscript<T: StatementColumnConvertible>(_ index: Int) -> T? {
        isNull(index) ? nil : T(sqliteStatement: statement, index: CInt(index))
    }

    private func isNull(_ index: Int) -> Bool { sqlite3_column_type(statement, CInt(index)) == SQLITE_NULL }
}

extension Database {
    /// Steps the cached statement for `sql` with `arguments` (integers, bound in order) and
    /// hands each row to `body`; the statement is reset afterwards, as GRDB leaves its own.
    func eachRow(_ sql: String, _ arguments: [Int64], _ body: (StatementRow) throws -> Void) throws {
        let handle = try cachedStatement(sql: sql).sqliteStatement
        sqlite3_reset(handle)
        defer { sqlite3_reset(handle) }
        for (index, argument) in arguments.enumerated() { sqlite3_bind_int64(handle, CInt(index + 1), argument) }
        while true {
            let code = sqlite3_step(handle)
            if code == SQLITE_DONE { return }
            guard code == SQLITE_ROW else {
                throw DatabaseError(
                    resultCode: ResultCode(rawValue: code),
                    message: String(cString: sqlite3_errmsg(sqliteConnection))
                )
            }
            try body(StatementRow(statement: handle))
        }
    }
}
