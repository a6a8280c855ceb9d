/// The audit log's one JSON dialect: flat objects of strings, integers and nulls, keys in the
/// order the writer gives them, no spaces, one line.
///
/// Written by hand rather than with `JSONEncoder` because the chain hashes these exact bytes:
/// the same record must serialise to the same bytes on every run and every Swift version, and a
/// general encoder promises neither key order nor number and escape forms.
///
/// Escapes: `"` and `\` as `\"`, `\\`; `\n`, `\r`, `\t` in short form; every other control
/// character, DEL and U+2028/U+2029 as `\u00XX`, so a record stays one line and nothing in it
/// can drive a terminal that prints the file. Other characters pass through as UTF-8.
public enum CanonicalJSON {
    /// One value of a flat record.
    public enum Value: Equatable, Sendable {
        case string(String)
        case integer(Int64)
        case null
    }

    /// `{"k1":v1,"k2":v2}` in the order given, as UTF-8 bytes.
    public static func object(_ fields: [(key: String, value: Value)]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        out.append(UInt8(ascii: "{"))
        for (index, field) in fields.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            appendString(field.key, to: &out)
            out.append(UInt8(ascii: ":"))
            appendValue(field.value, to: &out)
        }
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// Appends one value in canonical form.
    public static func appendValue(_ value: Value, to out: inout [UInt8]) {
        switch value {
        case .string(let s): appendString(s, to: &out)
        case .integer(let n): appendInteger(n, to: &out)
        case .null: out.append(contentsOf: "null".utf8)
        }
    }

    /// Appends `n` in decimal, as `String(n)` writes it, without making the `String`.
    public static func appendInteger(_ n: Int64, to out: inout [UInt8]) {
        if n < 0 { out.append(UInt8(ascii: "-")) }
        var magnitude = n.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 19 digits at most, in reverse
        let count = withUnsafeMutableBytes(of: &digits) { buffer in
            var count = 0
            repeat {
                buffer[count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                count += 1
            } while magnitude > 0
            return count
        }
        withUnsafeBytes(of: &digits) { buffer in
            for index in stride(from: count - 1, through: 0, by: -1) { out.append(buffer[index]) }
        }
    }

    /// Appends `"…"` with the escapes above.
    ///
    /// Works on the UTF-8 bytes, which a `String` always holds valid: every byte that needs an
    /// escape is ASCII, but for U+2028/U+2029 (`E2 80 A8`/`E2 80 A9`), and everything else is
    /// copied as it is, a run at a time. Every record passes here, before its hash.
    public static func appendString(_ string: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var string = string
        string.withUTF8 { bytes in
            var runStart = 0
            var i = 0
            while i < bytes.count {
                let byte = bytes[i]
                let escapeLength: Int
                if byte < 0x20 || byte == 0x22 || byte == 0x5C || byte == 0x7F {
                    escapeLength = 1
                } else if byte == 0xE2, i + 2 < bytes.count, bytes[i + 1] == 0x80,
                    bytes[i + 2] == 0xA8 || bytes[i + 2] == 0xA9
                {
                    escapeLength = 3
                } else {
                    i += 1
                    continue
                }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<i]))
                switch byte {
                case 0x22: out.append(contentsOf: [0x5C, 0x22])
                case 0x5C: out.append(contentsOf: [0x5C, 0x5C])
                case 0x0A: out.append(contentsOf: [0x5C, UInt8(ascii: "n")])
                case 0x0D: out.append(contentsOf: [0x5C, UInt8(ascii: "r")])
                case 0x09: out.append(contentsOf: [0x5C, UInt8(ascii: "t")])
                case 0xE2: appendUnicodeEscape(bytes[i + 2] == 0xA8 ? 0x2028 : 0x2029, to: &out)
                default: appendUnicodeEscape(UInt32(byte), to: &out)
                }
                i += escapeLength
                runStart = i
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<bytes.count]))
        }
        out.append(UInt8(ascii: "\""))
    }

    private static func appendUnicodeEscape(_ value: UInt32, to out: inout [UInt8]) {
        out.append(contentsOf: "\\u".utf8)
        out.append(contentsOf: hex4(value))
    }

    private static func hex4(_ value: UInt32) -> [UInt8] {
        let digits = Array("0123456789abcdef".utf8)
        return [12, 8, 4, 0].map { digits[Int((value >> UInt32($0)) & 0xF)] }
    }
}
