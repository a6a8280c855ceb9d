/// Splits the terminal's bytes into key presses, focus reports and pastes.
///
/// One `read()` may carry several keys, half of an escape sequence, or half of a UTF-8
/// character. Each key must reach the chain on its own, and readline must get whole sequences:
/// in callback mode it waits forever on a lone ESC, and in i-search an ESC followed by more input
/// is replayed as a prefix (docs/readline.md §1). So a partial `ESC` or `ESC [` is held, and
/// handed on as it is after `escapeTimeout` of silence (the loop asks `pendingDeadline`).
///
/// A bracketed paste (`ESC[200~` … `ESC[201~`) becomes one key press holding the whole paste, so
/// readline, which reads a paste body synchronously, never runs the queue dry in the middle.
/// Focus reports (`ESC[I`, `ESC[O`) become focus events and never reach readline, where they
/// would ring the bell or end a search.
///
/// A paste is held only up to `Line.maximumLength` (plus its brackets): past that the decoder
/// says `.pasteTooLong` once, and drops (zeroed) the rest of the paste up to its `ESC[201~`
/// without holding it. Finding the paste's end looks at each byte once, so a paste that comes in
/// many reads costs time linear in its size.
public struct KeyDecoder {
    /// What came out of the bytes.
    public enum Output: Equatable, Sendable {
        case key(KeyPress)
        case focus(Focus)
        /// A bracketed paste longer than `Line.maximumLength`: refused, and its bytes dropped.
        case pasteTooLong
    }

    /// The most a held paste may be: the longest line, and its two brackets.
    public static let maximumPaste = Line.maximumLength + 12

    /// How long a partial escape sequence is held before it is handed on as it is.
    public static let escapeTimeout: Duration = .milliseconds(30)

    private var held: [UInt8] = []
    private var heldSince: Instant?
    /// In a paste held unfinished: `held` from here on has not been searched for its end.
    private var pasteSearchedTo = 0
    /// Dropping a refused paste until its end; the last bytes seen, for an end split across reads.
    private var skippingPaste = false
    private var skipTail: [UInt8] = []

    public init() {}

    /// When held bytes must be flushed, if any are held.
    public var pendingDeadline: Instant? { heldSince.map { $0 + Self.escapeTimeout } }

    /// Whether bytes are held (a partial sequence or a paste in progress).
    public var isHolding: Bool { !held.isEmpty }

    /// Decodes `bytes` read at `now`.
    public mutating func decode(_ bytes: some Collection<UInt8>, at now: Instant) -> [Output] {
        if skippingPaste {
            guard let rest = skipPaste(bytes) else { return [] }
            return decode(rest, at: now)
        }
        held.append(contentsOf: bytes)
        var out: [Output] = []
        var start = 0
        while start < held.count {
            switch Self.scan(held, from: start, pasteSearchedTo: start == 0 ? pasteSearchedTo : 0) {
            case .complete(let length, let output):
                if let output { out.append(output) }
                start += length
                pasteSearchedTo = 0
            case .incomplete:
                held.removeFirst(start)
                if start > 0 { pasteSearchedTo = 0 }
                if heldSince == nil || start > 0 { heldSince = now }
                if Self.hasPrefix(held, Self.pasteStart) {
                    // A paste still coming is not silence: the 30 ms count from its latest bytes.
                    heldSince = now
                    // Searched up to where an end marker could still begin.
                    pasteSearchedTo = max(Self.pasteStart.count, held.count - Self.pasteEnd.count + 1)
                    if held.count > Self.maximumPaste {
                        skipTail = Array(held.suffix(Self.pasteEnd.count - 1))
                        wipe()
                        skippingPaste = true
                        out.append(.pasteTooLong)
                    }
                }
                return out
            }
        }
        held.removeAll(keepingCapacity: true)
        heldSince = nil
        return out
    }

    /// Drops a refused paste's bytes; the bytes after its end, once it comes, or nil before.
    private mutating func skipPaste(_ bytes: some Collection<UInt8>) -> [UInt8]? {
        var window = skipTail
        window.append(contentsOf: bytes)
        defer { for i in window.indices { window[i] = 0 } }
        var j = 0
        while j + Self.pasteEnd.count <= window.count {
            if window[j] == 0x1B, Self.hasPrefix(window[j...], Self.pasteEnd) {
                skippingPaste = false
                for i in skipTail.indices { skipTail[i] = 0 }
                skipTail = []
                return Array(window[(j + Self.pasteEnd.count)...])
            }
            j += 1
        }
        for i in skipTail.indices { skipTail[i] = 0 }
        skipTail = Array(window.suffix(Self.pasteEnd.count - 1))
        return nil
    }

    /// Hands on what is held when its deadline has passed: a lone ESC, or a sequence that never
    /// finished, as one key; an unfinished paste as a paste.
    public mutating func flush(at now: Instant) -> [Output] {
        guard let deadline = pendingDeadline, now >= deadline, !held.isEmpty else { return [] }
        defer { wipe() }
        if Self.hasPrefix(held, Self.pasteStart) { return [.key(KeyPress(held, isPaste: true))] }
        return [.key(KeyPress(held))]
    }

    /// Forgets anything held, zeroing it first (typed-ahead bytes must not survive a lock).
    public mutating func wipe() {
        for i in held.indices { held[i] = 0 }
        held.removeAll()
        heldSince = nil
        pasteSearchedTo = 0
    }

    // MARK: Scanning

    private enum Scan {
        case complete(length: Int, output: Output?)
        case incomplete
    }

    static let pasteStart: [UInt8] = Array("\u{1B}[200~".utf8)
    static let pasteEnd: [UInt8] = Array("\u{1B}[201~".utf8)

    private static func scan(_ b: [UInt8], from i: Int, pasteSearchedTo: Int) -> Scan {
        let first = b[i]
        if first == 0x1B { return scanEscape(b, from: i, pasteSearchedTo: pasteSearchedTo) }
        let length = utf8Length(first)
        if i + length > b.count { return .incomplete }
        return .complete(length: length, output: .key(KeyPress(Array(b[i..<i + length]))))
    }

    private static func scanEscape(_ b: [UInt8], from i: Int, pasteSearchedTo: Int) -> Scan {
        guard i + 1 < b.count else { return .incomplete }
        let second = b[i + 1]
        switch second {
        case UInt8(ascii: "["):
            // CSI: parameters and intermediates 0x20–0x3F, then one final byte 0x40–0x7E.
            var j = i + 2
            while j < b.count, (0x20...0x3F).contains(b[j]) { j += 1 }
            guard j < b.count else { return .incomplete }
            let sequence = Array(b[i...j])
            if sequence == pasteStart { return scanPaste(b, from: i, searchedTo: pasteSearchedTo) }
            if sequence == Array("\u{1B}[I".utf8) { return .complete(length: 3, output: .focus(.gained)) }
            if sequence == Array("\u{1B}[O".utf8) { return .complete(length: 3, output: .focus(.lost)) }
            return .complete(length: sequence.count, output: .key(KeyPress(sequence)))
        case UInt8(ascii: "O"):
            // SS3 (application cursor keys, F1–F4): one more byte.
            guard i + 2 < b.count else { return .incomplete }
            return .complete(length: 3, output: .key(KeyPress(Array(b[i...i + 2]))))
        case 0x1B:
            // ESC ESC: hand on the first one alone; the second starts the next key.
            return .complete(length: 1, output: .key(KeyPress([0x1B])))
        default:
            // Meta: ESC followed by one character (M-b, M-f, M-.).
            let length = utf8Length(second)
            guard i + 1 + length <= b.count else { return .incomplete }
            return .complete(length: 1 + length, output: .key(KeyPress(Array(b[i..<i + 1 + length]))))
        }
    }

    private static func scanPaste(_ b: [UInt8], from i: Int, searchedTo: Int) -> Scan {
        var j = i + max(pasteStart.count, searchedTo)
        while j + pasteEnd.count <= b.count {
            if b[j] == 0x1B, hasPrefix(b[j...], pasteEnd) {
                let end = j + pasteEnd.count
                guard end - i <= maximumPaste else { return .complete(length: end - i, output: .pasteTooLong) }
                return .complete(length: end - i, output: .key(KeyPress(Array(b[i..<end]), isPaste: true)))
            }
            j += 1
        }
        return .incomplete
    }

    private static func utf8Length(_ lead: UInt8) -> Int {
        switch lead {
        case 0xC2...0xDF: 2
        case 0xE0...0xEF: 3
        case 0xF0...0xF4: 4
        default: 1
        }
    }

    private static func hasPrefix(_ b: some Collection<UInt8>, _ prefix: [UInt8]) -> Bool {
        b.count >= prefix.count && zip(b, prefix).allSatisfy { $0 == $1 }
    }
}
