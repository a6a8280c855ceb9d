import Foundation
import GRDB
import GRDBSQLite

/// A TEXT column read whole, U+0000 and all.
///
/// GRDB reads a `String` column with `String(cString:)`, which stops at the first NUL: an
/// imported name `"nul\u0000byte"` came back as `nul`. Import keeps text as written (see
/// `storable(_:)`), so the chart shows what was imported, with the NUL made visible by the
/// display's sanitizer. Read through `Row.text(_:)`; a row copied out of its statement (`fetchOne`)
/// has already cut its strings, so such queries select text `CAST(… AS BLOB)`.
struct StoredText: DatabaseValueConvertible, StatementColumnConvertible {
    let string: String

    init(_ string: String) { self.string = string }

    init(sqliteStatement: SQLiteStatement, index: CInt) {
        let count = Int(sqlite3_column_bytes(sqliteStatement, index))
        guard let bytes = sqlite3_column_text(sqliteStatement, index) else {
            string = ""
            return
        }
        string = String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    var databaseValue: DatabaseValue { storable(string) }

    static func fromDatabaseValue(_ value: DatabaseValue) -> StoredText? {
        switch value.storage {
        case .string(let string): return StoredText(string)
        case .blob(let data): return StoredText(String(decoding: data, as: UTF8.self))
        default: return nil
        }
    }
}

extension Row {
    /// The text at `index`, whole.
    func text(_ index: Int) -> String { (self[index] as StoredText).string }

    /// The text at `index`, whole; nil for NULL.
    func optionalText(_ index: Int) -> String? { (self[index] as StoredText?)?.string }
}
