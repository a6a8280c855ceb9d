import CSQLite

/// A value bound to a statement's parameter.
///
/// Text is bound with its length, so a string holding U+0000 is stored whole, as TEXT (GRDB bound
/// a Swift string as a C string, which SQLite cut at the first U+0000).
enum SQLiteValue {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    static func integer(_ value: Int) -> SQLiteValue { .integer(Int64(value)) }

    static func bool(_ value: Bool) -> SQLiteValue { .integer(value ? 1 : 0) }

    /// The integer, or NULL.
    static func optional(_ value: Int64?) -> SQLiteValue { value.map { .integer($0) } ?? .null }

    /// The text, or NULL.
    static func optional(_ value: String?) -> SQLiteValue { value.map { .text($0) } ?? .null }

    /// Binds the value to parameter `index` (from 1) of `handle`; SQLite copies text and bytes
    /// before the call returns.
    func bind(to handle: OpaquePointer, at index: CInt) {
        switch self {
        case .null:
            sqlite3_bind_null(handle, index)
        case .integer(let value):
            sqlite3_bind_int64(handle, index, value)
        case .real(let value):
            sqlite3_bind_double(handle, index, value)
        case .text(var value):
            value.withUTF8 { bytes in
                _ = bytes.withMemoryRebound(to: CChar.self) {
                    ward_sqlite_bind_text(handle, index, $0.baseAddress, CInt($0.count))
                }
            }
        case .blob(let bytes):
            _ = bytes.withUnsafeBytes { ward_sqlite_bind_blob(handle, index, $0.baseAddress, CInt($0.count)) }
        }
    }
}
