import CSQLite

/// One result row of a statement being stepped, read column by column from SQLite, by index.
///
/// Nothing is set up per row: no dictionary of column names, no boxed values (what GRDB's
/// `Row` cost, more than SQLite's own work for the short reads of `find` and `open`:
/// Benchmarks/README.md, "Why the hot paths look as they do"). Valid only inside the
/// `eachRow` body it was handed to.
struct StatementRow {
    let statement: OpaquePointer

    /// The text at `index`, whole (U+0000 and all: its bytes by their count, not a C string);
    /// empty for NULL.
    func text(_ index: Int) -> String { String(row: self, index: CInt(index)) }

    /// The text at `index`, whole; nil for NULL.
    func optionalText(_ index: Int) -> String? {
        isNull(index) ? nil : text(index)
    }

    /// The integer at `index`; 0 for NULL, as SQLite converts it.
    func int64(_ index: Int) -> Int64 { sqlite3_column_int64(statement, CInt(index)) }

    /// How many columns the statement returns.
    var columnCount: Int { Int(sqlite3_column_count(statement)) }

    /// The value at `index`, nil for NULL.
    subscript<T: SQLiteColumnValue>(_ index: Int) -> T? {
        isNull(index) ? nil : T(row: self, index: CInt(index))
    }

    private func isNull(_ index: Int) -> Bool { sqlite3_column_type(statement, CInt(index)) == SQLITE_NULL }
}

/// A Swift type a column is read as, with SQLite's conversions (a TEXT read as an integer is
/// its leading number, a NULL is 0 or empty).
protocol SQLiteColumnValue {
    init(row: StatementRow, index: CInt)
}

extension Int64: SQLiteColumnValue {
    init(row: StatementRow, index: CInt) { self = sqlite3_column_int64(row.statement, index) }
}

extension Int: SQLiteColumnValue {
    init(row: StatementRow, index: CInt) { self = Int(sqlite3_column_int64(row.statement, index)) }
}

extension Bool: SQLiteColumnValue {
    init(row: StatementRow, index: CInt) { self = sqlite3_column_int64(row.statement, index) != 0 }
}

extension Double: SQLiteColumnValue {
    init(row: StatementRow, index: CInt) { self = sqlite3_column_double(row.statement, index) }
}

extension String: SQLiteColumnValue {
    init(row: StatementRow, index: CInt) {
        let count = Int(sqlite3_column_bytes(row.statement, index))
        guard let bytes = sqlite3_column_text(row.statement, index) else {
            self = ""
            return
        }
        self = String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }
}
