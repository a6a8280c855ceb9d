extension Sanitizer {
    /// Compact JSON text with every control character inside it written as `\uXXXX`.
    ///
    /// Foundation's `JSONEncoder` escapes C0 but leaves DEL, C1 (U+009B is a one-byte CSI) and the
    /// bidi controls raw, so a script that prints a field of `ward --batch --format json` would
    /// hand them to its terminal. Outside strings compact JSON holds only printable ASCII, so
    /// each such character found is inside a string, where `\uXXXX` means the same character to
    /// any JSON reader. One pass; JSON with nothing to escape comes back as it was.
    ///
    /// - Important: For compact JSON only (no newlines between tokens): a raw C0 byte is escaped
    ///   wherever it is.
    public static func json(_ encoded: String) -> String {
        withBytes(of: encoded) { bytes -> String? in
            guard let first = firstUnsafeInJSON(bytes) else { return nil }
            var out: [UInt8] = []
            out.reserveCapacity(bytes.count + 16)
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[0..<first]))
            var index = first
            while index < bytes.count {
                guard let length = jsonEscapeLength(bytes, at: index) else {
                    out.append(bytes[index])
                    index += 1
                    continue
                }
                let value = scalar(bytes, at: index, length: length)
                out.append(UInt8(ascii: "\\"))
                out.append(UInt8(ascii: "u"))
                for shift in stride(from: 12, through: 0, by: -4) {
                    out.append(hexDigits[Int(value >> UInt32(shift) & 0xF)])
                }
                index += length
            }
            return String(decoding: out, as: UTF8.self)
        } ?? encoded
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    private static func firstUnsafeInJSON(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard let base = bytes.baseAddress else { return nil }
        let raw = UnsafeRawPointer(base)
        var index = 0
        while index < bytes.count {
            if index + 8 <= bytes.count, isPlainASCII(raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)) {
                index += 8
                continue
            }
            if isCandidate(bytes[index]), jsonEscapeLength(bytes, at: index) != nil { return index }
            index += 1
        }
        return nil
    }

    /// The terminal's rules, except that a backslash is JSON's own and stays.
    @inline(__always)
    private static func jsonEscapeLength(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Int? {
        bytes[index] == 0x5C ? nil : escapeLength(bytes, at: index, .line)
    }
}
