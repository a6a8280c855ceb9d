import Glibc

/// The lines of a batch script as they arrive, from a file or from a pipe that may stall.
///
/// Every line is numbered as the file numbers it, so a message can name `script.ward:12`;
/// blank lines and `#` comments are counted and skipped. A last line without a newline still
/// counts. Bytes are zeroed once they are taken: a script holds MRNs and note text.
///
/// A line longer than `Line.maximumLength` is refused (`LineTooLong`) as soon as that many bytes
/// have come without a newline: the buffer never grows past the limit and one read, however
/// long the line the writer sends.
///
/// - Important: Reads only when the loop says the descriptor is readable, so a read never
///   blocks the loop while the pipe is quiet.
public struct BatchInput {
    /// One line to run, numbered from 1.
    public struct ScriptLine: Equatable, Sendable {
        public var number: Int
        public var text: String

        public init(number: Int, text: String) {
            self.number = number
            self.text = text
        }
    }

    /// A line longer than `Line.maximumLength`: the script is not run past the line before it.
    public struct LineTooLong: Error, Equatable, Sendable, CustomStringConvertible {
        /// The line's number in the script.
        public var number: Int
        /// Its first word, up to 64 bytes: the refusal's record names the command, never more.
        public var start: String

        public init(number: Int, start: String = "") {
            self.number = number
            self.start = start
        }

        public var description: String { Line.tooLongMessage }
    }

    /// What one read brought.
    public enum Fill: Equatable, Sendable {
        /// Some bytes (perhaps no whole line yet).
        case data
        /// The writer closed its end, or the file ended.
        case endOfInput
        /// `read` failed with this errno.
        case failed(Int32)
    }

    public let fd: Int32
    /// The last line number handed out or skipped.
    public private(set) var lineNumber = 0
    /// True once the input ended and every line in it was taken.
    public var isFinished: Bool { ended && head == pending.count }

    /// Bytes read and not yet taken start at `head`; those before it are zero.
    private var pending: [UInt8] = []
    private var head = 0
    /// Bytes from `head` up to here hold no newline: each byte is looked at once.
    private var scanned = 0
    private var ended = false
    /// Set once a line was too long; nothing more is read or handed out.
    private var refused = false
    private var chunk = [UInt8](repeating: 0, count: 65_536)

    public init(fd: Int32) {
        self.fd = fd
    }

    /// One `read` into the pending bytes.
    public mutating func fill() -> Fill {
        guard !ended, !refused else { return .endOfInput }
        let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        if n < 0 {
            if errno == EINTR || errno == EAGAIN { return .data }
            return .failed(errno)
        }
        if n == 0 {
            ended = true
            return .endOfInput
        }
        compact()
        pending.append(contentsOf: chunk[0..<n])
        chunk.withUnsafeMutableBytes { explicit_bzero($0.baseAddress!, n) }
        return .data
    }

    /// The next line to run, or nil until more input comes (or at the end). Skips blank lines and
    /// comments unless `keepingBlank` (a note's text, where they are the text's); drops a trailing
    /// `\r`. Throws for a line longer than `Line.maximumLength`, and zeroes every byte it holds then.
    public mutating func nextLine(keepingBlank: Bool = false) throws(LineTooLong) -> ScriptLine? {
        guard !refused else { return nil }
        while true {
            let end: Int
            let next: Int
            if let newline = pending[max(head, scanned)...].firstIndex(of: UInt8(ascii: "\n")) {
                end = newline
                next = newline + 1
            } else if ended, head < pending.count {
                end = pending.count
                next = end
            } else {
                scanned = pending.count
                // One byte of slack for a `\r` before the newline that has not come yet.
                if pending.count - head > Line.maximumLength + 1 { throw refuse() }
                return nil
            }
            var length = end - head
            if length > 0, pending[end - 1] == UInt8(ascii: "\r") { length -= 1 }
            if length > Line.maximumLength { throw refuse() }
            let start = head
            let text = pending.withUnsafeMutableBufferPointer { buffer in
                var textEnd = end
                if textEnd > start, buffer[textEnd - 1] == UInt8(ascii: "\r") { textEnd -= 1 }
                defer { explicit_bzero(buffer.baseAddress! + start, next - start) }
                return String(decoding: UnsafeBufferPointer(rebasing: buffer[start..<textEnd]), as: UTF8.self)
            }
            head = next
            scanned = head
            lineNumber += 1
            let trimmed = text.drop(while: { $0 == " " || $0 == "\t" })
            if !keepingBlank, trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            return ScriptLine(number: lineNumber, text: text)
        }
    }

    /// Zeroes and drops everything held, and reads no more.
    private mutating func refuse() -> LineTooLong {
        refused = true
        let first = pending[head...].prefix(64).prefix { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }
        let start = String(decoding: first, as: UTF8.self)
        if !pending.isEmpty { pending.withUnsafeMutableBytes { explicit_bzero($0.baseAddress!, $0.count) } }
        pending.removeAll()
        head = 0
        scanned = 0
        return LineTooLong(number: lineNumber + 1, start: start)
    }

    /// Moves the untaken bytes to the front and zeroes what the move leaves behind past the
    /// new end, so no copy of a taken line stays in the buffer's spare capacity.
    private mutating func compact() {
        guard head > 0 else { return }
        let total = pending.count
        let kept = total - head
        pending.withUnsafeMutableBytes { buffer in
            memmove(buffer.baseAddress!, buffer.baseAddress! + head, kept)
            explicit_bzero(buffer.baseAddress! + kept, head)
        }
        pending.removeLast(head)
        scanned -= head
        head = 0
    }
}
