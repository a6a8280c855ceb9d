import GRDB
import GRDBSQLite

/// One result row of a statement being stepped, read column by column from SQLite.
///
/// What `Row` offers the readers here (`text`, `optionalText`, an optional typed subscript), without what
/// a `Row` cursor costs: GRDB builds each cursor's row with a dictionary of its lower-cased
/// column names (and an `open` starts six cursors), which no reader here uses; they read by
/// index (Benchmarks/README.md, "Why the hot paths look as they do").
struct StatementRow {
    let statement: SQLiteStatement

    /// The text at `index`, whole (U+0000 and all, as `StoredText` reads it); empty for NULL.
    func text(_ index: Int) -> String { StoredText(sqliteStatement: statement, index: CInt(index)).string }

    /// The text at `index`, whole; nil for NULL.
    func optionalText(_ index: Int) -> String? {
        isNull(index) ? nil : text(index)
    }

    /// The integer at `index`; 0 for NULL, as SQLite converts it.
    func int64(_ index: Int) -> Int64 { sqlite3_column_int64(statement, CInt(index)) }

    subscript<T: StatementColumnConvertible>(_ index: Int) -> T? {
        isNull(index) ? nil : T(sqliteStatement: statement, index: CInt(index))
    }

    private func isNull(_ index: Int) -> Bool { sqlite3_column_type(statement, CInt(index)) == SQLITE_NULL }
}

/// A value bound to a statement's parameter by `Database.eachRow`.
enum StatementValue {
    case integer(Int64)
    case text(String)

    /// Binds the value to parameter `index` (from 1) of `handle`; SQLite copies text before
    /// the call returns.
    func bind(to handle: SQLiteStatement, at index: CInt) {
        switch self {
        case .integer(let value):
            sqlite3_bind_int64(handle, index, value)
        case .text(var value):
            value.withUTF8 { bytes in
                // An empty buffer may have no address; SQLite reads nothing at length 0 but takes
                // a nil pointer as NULL, so give it a real one.
                guard let base = bytes.baseAddress else {
                    _ = sqlite3_bind_text(handle, index, "", 0, sqliteTransient)
                    return
                }
                base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                    _ = sqlite3_bind_text(handle, index, $0, CInt(bytes.count), sqliteTransient)
                }
            }
        }
    }
}

/// SQLITE_TRANSIENT: SQLite copies the bytes before the bind call returns. The C macro is a cast
/// Swift cannot import.
private let sqliteTransient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

extension Database {
    /// Steps the cached statement for `sql` with `arguments` bound in order and hands each row
    /// to `body`; the statement is reset afterwards, as GRDB leaves its own.
    ///
    /// Not GRDB's `fetchAll`/`fetchCursor`: their argument checks, cursor and per-row generic
    /// conversion cost more than SQLite's own work for the short reads of `find` and `open`.
    func eachRow(_ sql: String, _ arguments: [StatementValue], _ body: (StatementRow) throws -> Void) throws {
        let handle = try cachedStatement(sql: sql).sqliteStatement
        sqlite3_reset(handle)
        defer { sqlite3_reset(handle) }
        for (index, argument) in arguments.enumerated() { argument.bind(to: handle, at: CInt(index + 1)) }
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

    /// `eachRow` with integer arguments only (ids, ranges of ids).
    func eachRow(_ sql: String, _ arguments: [Int64], _ body: (StatementRow) throws -> Void) throws {
        try eachRow(sql, arguments.map(StatementValue.integer), body)
    }
}
