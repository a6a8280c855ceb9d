/// A parsed audit record line: a flat JSON object of strings, integers and nulls,
/// keys in file order.
///
/// The reader for `ward audit verify` and `ward audit show`. Deliberately small and strict: a
/// nested value, a fraction, a duplicate key or trailing bytes make the line unreadable, which
/// the verifier reports rather than guesses at.
public struct FlatJSONObject: Equatable, Sendable {
    /// The fields in the order the line wrote them.
    public private(set) var fields: [(key: String, value: CanonicalJSON.Value)]

    public static func == (a: FlatJSONObject, b: FlatJSONObject) -> Bool {
        a.fields.count == b.fields.count
            && zip(a.fields, b.fields).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    }

    /// Parses one line (without its newline); nil when it is not such an object.
    public init?(_ bytes: some Collection<UInt8>) {
        var parser = Parser(bytes: Array(bytes))
        guard let fields = parser.object() else { return nil }
        var seen = Set<String>()
        for field in fields where !seen.insert(field.key).inserted { return nil }
        self.fields = fields
    }

    /// The value of `key`, if present.
    public subscript(key: String) -> CanonicalJSON.Value? {
        fields.first { $0.key == key }?.value
    }

    /// The string value of `key`; nil when absent, null or not a string.
    public func string(_ key: String) -> String? {
        if case .string(let s) = self[key] { return s }
        return nil
    }

    /// The integer value of `key`; nil when absent, null or not an integer.
    public func integer(_ key: String) -> Int64? {
        if case .integer(let n) = self[key] { return n }
        return nil
    }

    private struct Parser {
        let bytes: [UInt8]
        var index = 0

        init(bytes: [UInt8]) { self.bytes = bytes }

        mutating func object() -> [(key: String, value: CanonicalJSON.Value)]? {
            skipSpace()
            guard take(UInt8(ascii: "{")) else { return nil }
            var fields: [(key: String, value: CanonicalJSON.Value)] = []
            skipSpace()
            if take(UInt8(ascii: "}")) { return finish(fields) }
            while true {
                skipSpace()
                guard let key = string() else { return nil }
                skipSpace()
                guard take(UInt8(ascii: ":")) else { return nil }
                skipSpace()
                guard let value = value() else { return nil }
                fields.append((key, value))
                skipSpace()
                if take(UInt8(ascii: ",")) { continue }
                guard take(UInt8(ascii: "}")) else { return nil }
                return finish(fields)
            }
        }

        private mutating func finish(
            _ fields: [(key: String, value: CanonicalJSON.Value)]
        ) -> [(key: String, value: CanonicalJSON.Value)]? {
            skipSpace()
            return index == bytes.count ? fields : nil
        }

        private mutating func value() -> CanonicalJSON.Value? {
            guard index < bytes.count else { return nil }
            switch bytes[index] {
            case UInt8(ascii: "\""): return string().map { .string($0) }
            case UInt8(ascii: "n"): return literal("null") ? .null : nil
            default: return integer().map { .integer($0) }
            }
        }

        private mutating func integer() -> Int64? {
            var negative = false
            if take(UInt8(ascii: "-")) { negative = true }
            var n: Int64 = 0
            var digits = 0
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
                let (m, o1) = n.multipliedReportingOverflow(by: 10)
                let (a, o2) = m.addingReportingOverflow(Int64(bytes[index] - UInt8(ascii: "0")))
                if o1 || o2 { return nil }
                n = a
                digits += 1
                index += 1
            }
            guard digits > 0 else { return nil }
            return negative ? -n : n
        }

        private mutating func string() -> String? {
            guard take(UInt8(ascii: "\"")) else { return nil }
            var out: [UInt8] = []
            while index < bytes.count {
                let b = bytes[index]
                index += 1
                switch b {
                case UInt8(ascii: "\""):
                    return String(validating: out, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard index < bytes.count else { return nil }
                    let e = bytes[index]
                    index += 1
                    switch e {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
                    case UInt8(ascii: "n"): out.append(0x0A)
                    case UInt8(ascii: "r"): out.append(0x0D)
                    case UInt8(ascii: "t"): out.append(0x09)
                    case UInt8(ascii: "b"): out.append(0x08)
                    case UInt8(ascii: "f"): out.append(0x0C)
                    case UInt8(ascii: "u"):
                        guard var scalar = hex4() else { return nil }
                        if (0xD800..<0xDC00).contains(scalar) {
                            guard take(UInt8(ascii: "\\")), take(UInt8(ascii: "u")), let low = hex4(),
                                (0xDC00..<0xE000).contains(low)
                            else { return nil }
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        }
                        guard let u = Unicode.Scalar(scalar) else { return nil }
                        out.append(contentsOf: String(u).utf8)
                    default: return nil
                    }
                case 0x00..<0x20:
                    return nil
                default:
                    out.append(b)
                }
            }
            return nil
        }

        private mutating func hex4() -> UInt32? {
            guard index + 4 <= bytes.count else { return nil }
            var v: UInt32 = 0
            for _ in 0..<4 {
                let b = bytes[index]
                index += 1
                let d: UInt8
                switch b {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): d = b - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): d = b - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): d = b - UInt8(ascii: "A") + 10
                default: return nil
                }
                v = v << 4 | UInt32(d)
            }
            return v
        }

        private mutating func literal(_ word: String) -> Bool {
            let w = Array(word.utf8)
            guard index + w.count <= bytes.count, Array(bytes[index..<index + w.count]) == w else { return false }
            index += w.count
            return true
        }

        private mutating func take(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        private mutating func skipSpace() {
            while index < bytes.count, [0x20, 0x09].contains(bytes[index]) { index += 1 }
        }
    }
}
