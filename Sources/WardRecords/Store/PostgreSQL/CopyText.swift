import CSQLite
import PostgresNIO

/// Rows in PostgreSQL's COPY text format, built straight from SQLite's column bytes.
///
/// A column is its text with backslash, tab, newline and carriage return escaped; NULL is `\N`;
/// tab separates columns and newline ends a row. Values go from SQLite's buffers into the
/// chunk with no Swift `String` between, since a million-patient load is tens of millions of
/// rows. A REAL is written as Swift's shortest round-trip decimal: SQLite's own text for it
/// keeps 15 digits and would change the value.
struct CopyText {
    /// A chunk is sent when it holds this much.
    static let chunkSize = 256 * 1024

    private(set) var buffer = ByteBufferAllocator().buffer(capacity: chunkSize + 4096)

    var isFull: Bool { buffer.readableBytes >= Self.chunkSize }

    /// Takes the chunk built so far, leaving an empty one.
    mutating func take() -> ByteBuffer {
        defer { buffer = ByteBufferAllocator().buffer(capacity: Self.chunkSize + 4096) }
        return buffer
    }

    /// Appends column `index` of the row `statement` is on; `first` for a row's first column.
    mutating func appendColumn(_ statement: OpaquePointer, _ index: Int32, first: Bool) throws {
        if !first { buffer.writeInteger(UInt8(ascii: "\t")) }
        switch sqlite3_column_type(statement, index) {
        case SQLITE_NULL:
            buffer.writeStaticString("\\N")
        case SQLITE_INTEGER:
            buffer.writeString(String(sqlite3_column_int64(statement, index)))
        case SQLITE_FLOAT:
            buffer.writeString(sqlite3_column_double(statement, index).description)
        default:
            // TEXT (and a BLOB, read as its bytes: a text column holding U+0000 is one).
            let count = Int(sqlite3_column_bytes(statement, index))
            guard count > 0, let bytes = sqlite3_column_blob(statement, index) else { return }
            try appendText(UnsafeRawBufferPointer(start: bytes, count: count))
        }
    }

    /// Ends a row.
    mutating func endRow() { buffer.writeInteger(UInt8(ascii: "\n")) }

    /// Appends a Swift string as one column.
    mutating func appendColumn(_ text: String, first: Bool) throws {
        if !first { buffer.writeInteger(UInt8(ascii: "\t")) }
        var text = text
        try text.withUTF8 { try appendText(UnsafeRawBufferPointer($0)) }
    }

    /// Appends an integer as one column.
    mutating func appendColumn(_ value: Int64, first: Bool) {
        if !first { buffer.writeInteger(UInt8(ascii: "\t")) }
        buffer.writeString(String(value))
    }

    /// Appends a NULL column.
    mutating func appendNull(first: Bool) {
        if !first { buffer.writeInteger(UInt8(ascii: "\t")) }
        buffer.writeStaticString("\\N")
    }

    /// Appends a number as one column, in its shortest round-trip form.
    mutating func appendColumn(_ value: Double, first: Bool) {
        if !first { buffer.writeInteger(UInt8(ascii: "\t")) }
        buffer.writeString(value.description)
    }

    private mutating func appendText(_ bytes: UnsafeRawBufferPointer) throws {
        var start = 0
        for (offset, byte) in bytes.enumerated() {
            let escaped: UInt8
            switch byte {
            case UInt8(ascii: "\\"): escaped = UInt8(ascii: "\\")
            case UInt8(ascii: "\n"): escaped = UInt8(ascii: "n")
            case UInt8(ascii: "\r"): escaped = UInt8(ascii: "r")
            case UInt8(ascii: "\t"): escaped = UInt8(ascii: "t")
            case 0: throw StoreError.database(reason: "PostgreSQL cannot store text holding U+0000")
            default: continue
            }
            buffer.writeBytes(UnsafeRawBufferPointer(rebasing: bytes[start..<offset]))
            buffer.writeInteger(UInt8(ascii: "\\"))
            buffer.writeInteger(escaped)
            start = offset + 1
        }
        buffer.writeBytes(UnsafeRawBufferPointer(rebasing: bytes[start...]))
    }
}
