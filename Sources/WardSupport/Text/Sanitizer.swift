/// Makes text that Ward did not write safe to put on a terminal: every control character is
/// shown as a visible escape, never sent.
///
/// A patient's name, a note written by another user, a user name or a value quoted in an error
/// may hold `ESC ]52;c;… BEL` (a clipboard write), `ESC [2J`, CR or BS overwrites, C1 controls
/// (U+009B is a one-byte CSI) or bidi overrides that reorder what the reader sees. Ward calls
/// this once, where text leaves it for a terminal (`TextOutput`, `BatchOutput`, the prompt, the
/// `ward: …` error writer), not in each command.
///
/// One notation, led by a backslash, so that a reader can always tell what was there:
///
/// | Character                              | Shown as                                     |
/// | -------------------------------------- | -------------------------------------------- |
/// | NUL, BEL, BS, TAB, LF, VT, FF, CR, ESC | `\0` `\a` `\b` `\t` `\n` `\v` `\f` `\r` `\e` |
/// | other C0, DEL                          | `\x01` … `\x1F`, `\x7F`                      |
/// | C1 U+0080–U+009F                       | `\u0085`, `\u009B`                           |
/// | bidi U+061C U+200E U+200F U+202A–U+202E U+2066–U+2069, U+2028 U+2029 | `\u202E` |
/// | a backslash                            | `\\`                                         |
///
/// The backslash is doubled so that a name that really contains the four characters `\e[2J`
/// reads `\\e[2J`, and never passes for an escape. So the function is not idempotent: apply it
/// exactly once, at the edge.
///
/// Cost: one pass over the UTF-8 bytes, eight at a time while they are plain ASCII. Text with
/// nothing to escape (nearly every line) is returned as it came, without a copy; only text that
/// needs escaping is rebuilt, in one more linear pass (Benchmarks/Sanitizer).
public enum Sanitizer {
    /// What a line break in the text means.
    public enum Mode: Sendable {
        /// A single-line field (a table cell, a prompt): a newline is escaped too (`\n`).
        case line
        /// Text that Ward lays out over several lines (a message, a note's paragraph): LF stays
        /// a line break; CR and every other control is escaped.
        case text
    }

    /// `text` with every control character made visible; `text` itself when there is none.
    public static func sanitize(_ text: String, _ mode: Mode = .line) -> String {
        withBytes(of: text) { bytes in
            guard let first = firstUnsafe(bytes, mode) else { return nil }
            return escaped(bytes, from: first, mode)
        } ?? text
    }

    /// Runs `body` on the UTF-8 bytes of `text` in place (a native string), or on a copy (a
    /// bridged one). Not `String.withUTF8`: it is mutating, and a copy costs more than the scan.
    @inline(__always)
    static func withBytes(of text: String, _ body: (UnsafeBufferPointer<UInt8>) -> String?) -> String? {
        if let result = text.utf8.withContiguousStorageIfAvailable(body) { return result }
        return Array(text.utf8).withUnsafeBufferPointer(body)
    }

    /// A single-line field: `sanitize(text, .line)`.
    public static func line(_ text: String) -> String { sanitize(text, .line) }

    /// Text laid out over several lines: `sanitize(text, .text)`.
    public static func text(_ text: String) -> String { sanitize(text, .text) }

    /// True when `text` would come back changed.
    public static func needsEscaping(_ text: String, _ mode: Mode = .line) -> Bool {
        withBytes(of: text) { firstUnsafe($0, mode) == nil ? nil : "" } != nil
    }

    // MARK: Scanning

    /// The offset of the first byte that starts a character to escape.
    ///
    /// Eight bytes at a time while they are plain printable ASCII (0x20–0x7E but `\`): the common
    /// line costs about one compare per word. A word with anything else is looked at byte by
    /// byte, and lead bytes tell most of it: ASCII controls and `\` are below 0x20 or 0x5C/0x7F;
    /// C1 is `C2 80…9F`; U+061C is `D8 9C`; the bidi marks and U+2028/9 start with `E2 80` or
    /// `E2 81`. Any other byte is skipped at once.
    static func firstUnsafe(_ bytes: UnsafeBufferPointer<UInt8>, _ mode: Mode) -> Int? {
        guard let base = bytes.baseAddress else { return nil }
        let raw = UnsafeRawPointer(base)
        let count = bytes.count
        var index = 0
        while index + 8 <= count {
            let word = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            if isPlainASCII(word) {
                index += 8
                continue
            }
            for offset in index..<index + 8 where isCandidate(bytes[offset]) {
                if escapeLength(bytes, at: offset, mode) != nil { return offset }
            }
            index += 8
        }
        while index < count {
            if isCandidate(bytes[index]), escapeLength(bytes, at: index, mode) != nil { return index }
            index += 1
        }
        return nil
    }

    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highs: UInt64 = 0x8080_8080_8080_8080

    /// True when all eight bytes are 0x20…0x7E and none is `\` (bit tricks: a byte is zero
    /// exactly where `(x - 1) & ~x` has its high bit).
    @inline(__always)
    static func isPlainASCII(_ word: UInt64) -> Bool {
        func hasZeroByte(_ x: UInt64) -> Bool { (x &- ones) & ~x & highs != 0 }
        if word & highs != 0 { return false }  // a byte ≥ 0x80
        if (word &- ones &* 0x20) & ~word & highs != 0 { return false }  // a byte < 0x20
        if hasZeroByte(word ^ (ones &* 0x7F)) { return false }
        return !hasZeroByte(word ^ (ones &* 0x5C))
    }

    @inline(__always)
    static func isCandidate(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == 0x5C || byte == 0x7F || byte == 0xC2 || byte == 0xD8 || byte == 0xE2
    }

    /// How many bytes the character at `index` takes when it must be escaped; nil when it is
    /// shown as it is.
    @inline(__always)
    static func escapeLength(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int, _ mode: Mode) -> Int? {
        let byte = bytes[index]
        switch byte {
        case 0x0A: return mode == .line ? 1 : nil
        case 0x00..<0x20, 0x5C, 0x7F: return 1
        case 0xC2:
            guard index + 1 < bytes.count else { return nil }
            return (0x80...0x9F).contains(bytes[index + 1]) ? 2 : nil
        case 0xD8:
            guard index + 1 < bytes.count else { return nil }
            return bytes[index + 1] == 0x9C ? 2 : nil
        case 0xE2:
            guard index + 2 < bytes.count else { return nil }
            let second = bytes[index + 1]
            let third = bytes[index + 2]
            if second == 0x80, third == 0x8E || third == 0x8F || (0xA8...0xAE).contains(third) { return 3 }
            if second == 0x81, (0xA6...0xA9).contains(third) { return 3 }
            return nil
        default:
            return nil
        }
    }

    // MARK: Escaping

    private static let hex: [UInt8] = Array("0123456789ABCDEF".utf8)

    /// Copies `bytes` up to `first` as they are, then escapes from there on.
    private static func escaped(_ bytes: UnsafeBufferPointer<UInt8>, from first: Int, _ mode: Mode) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 16)
        out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[0..<first]))
        var index = first
        while index < bytes.count {
            guard let length = escapeLength(bytes, at: index, mode) else {
                out.append(bytes[index])
                index += 1
                continue
            }
            appendEscape(of: scalar(bytes, at: index, length: length), to: &out)
            index += length
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The code point of a one-, two- or three-byte UTF-8 sequence.
    @inline(__always)
    static func scalar(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int, length: Int) -> UInt32 {
        switch length {
        case 1: return UInt32(bytes[index])
        case 2: return UInt32(bytes[index] & 0x1F) << 6 | UInt32(bytes[index + 1] & 0x3F)
        default:
            return UInt32(bytes[index] & 0x0F) << 12 | UInt32(bytes[index + 1] & 0x3F) << 6
                | UInt32(bytes[index + 2] & 0x3F)
        }
    }

    private static func appendEscape(of value: UInt32, to out: inout [UInt8]) {
        let backslash = UInt8(ascii: "\\")
        let named: UInt8? =
            switch value {
            case 0x00: UInt8(ascii: "0")
            case 0x07: UInt8(ascii: "a")
            case 0x08: UInt8(ascii: "b")
            case 0x09: UInt8(ascii: "t")
            case 0x0A: UInt8(ascii: "n")
            case 0x0B: UInt8(ascii: "v")
            case 0x0C: UInt8(ascii: "f")
            case 0x0D: UInt8(ascii: "r")
            case 0x1B: UInt8(ascii: "e")
            case 0x5C: backslash
            default: nil
            }
        // Byte by byte: an array literal here would be allocated for every escape.
        out.append(backslash)
        if let named {
            out.append(named)
        } else if value < 0x80 {
            out.append(UInt8(ascii: "x"))
            appendHex(value, digits: 2, to: &out)
        } else {
            out.append(UInt8(ascii: "u"))
            appendHex(value, digits: 4, to: &out)
        }
    }

    /// `value` as `digits` upper-case hexadecimal digits.
    @inline(__always)
    private static func appendHex(_ value: UInt32, digits: Int, to out: inout [UInt8]) {
        let hex = Self.hex
        for shift in stride(from: (digits - 1) * 4, through: 0, by: -4) {
            out.append(hex[Int(value >> UInt32(shift) & 0xF)])
        }
    }
}
