import Glibc

/// What the records shell prints at the terminal: straight to standard output, or, while a
/// command runs (`startCapturing`), kept here so the front end can page it when it is taller
/// than the window (`Pager`).
///
/// Kept lines are chart rows, so the lock wipes them: every line's bytes live in one buffer
/// this object owns and zeroes (`explicit_bzero`) before releasing it, not in Swift strings that
/// could be copied where a wipe cannot reach. When the buffer grows, its old storage is released
/// through the executable's scrubbing `free`, which zeroes it.
///
/// The shell marks a table's header line (`writeHeader`): the pager keeps the header of the rows
/// on screen at the top of each page.
///
/// Text arrives sanitized (a table's cells, a message) and is kept as it came.
///
/// - Important: Not `Sendable`. It belongs to the loop's thread, which runs the shell, draws the
///   pages and wipes them.
public final class PageBuffer: Wipeable {
    /// One kept line: its bytes in `bytes`, and whether it heads a table.
    struct Line: Equatable {
        var start: Int
        var end: Int
        var isHeader: Bool
    }

    private var bytes: [UInt8] = []
    private(set) var lines: [Line] = []
    /// Where text goes while nothing is captured.
    private let print: (String) -> Void
    /// How a header line is drawn: bold at a colour terminal. Applied when a line is printed or
    /// drawn, never kept, so widths are measured on the text alone.
    public let style: TerminalStyle

    /// Lines are kept, not printed: a command is running at a terminal that pages.
    public private(set) var isCapturing = false

    /// - Parameters:
    ///   - print: Where a line goes when it is not kept (standard output by default).
    ///   - style: How header lines are drawn.
    public init(print: @escaping (String) -> Void = { Swift.print($0) }, style: TerminalStyle = .plain) {
        self.print = print
        self.style = style
    }

    /// Starts keeping what is written, after anything kept before is wiped.
    public func startCapturing() {
        wipe()
        isCapturing = true
    }

    /// Stops keeping lines; what was kept stays until `wipe()`.
    public func stopCapturing() {
        isCapturing = false
    }

    /// A line of output (a message may hold several, split at its newlines).
    public func write(_ text: String) {
        guard isCapturing else { return print(text) }
        keep(text, isHeader: false)
    }

    /// A table's header line: the pager keeps it above the rows that follow it.
    public func writeHeader(_ text: String) {
        guard isCapturing else { return print(style.header(text)) }
        keep(text, isHeader: true)
    }

    private func keep(_ text: String, isHeader: Bool) {
        var start = bytes.count
        for byte in text.utf8 {
            if byte == 0x0A {
                lines.append(Line(start: start, end: bytes.count, isHeader: isHeader))
                start = bytes.count
            } else {
                bytes.append(byte)
            }
        }
        lines.append(Line(start: start, end: bytes.count, isHeader: isHeader))
    }

    /// How many lines are kept.
    public var count: Int { lines.count }

    /// Kept line `index` (from 0).
    public func text(at index: Int) -> String {
        text(from: lines[index].start, to: lines[index].end)
    }

    /// The kept bytes `start..<end` as text.
    func text(from start: Int, to end: Int) -> String {
        bytes.withUnsafeBufferPointer {
            String(decoding: UnsafeBufferPointer(rebasing: $0[start..<end]), as: UTF8.self)
        }
    }

    /// Whether the kept bytes `start..<end` are ASCII only (one column a byte).
    func isASCII(from start: Int, to end: Int) -> Bool {
        bytes[start..<end].allSatisfy { $0 < 0x80 }
    }

    /// Whether kept line `index` heads a table.
    public func isHeader(at index: Int) -> Bool { lines[index].isHeader }

    /// Prints what was kept and forgets it: output that needs no pager.
    public func printKept() {
        for index in lines.indices { print(lines[index].isHeader ? style.header(text(at: index)) : text(at: index)) }
        wipe()
    }

    /// Zeroes every kept byte and forgets the lines; capturing stops.
    public func wipe() {
        bytes.withUnsafeMutableBytes { if let base = $0.baseAddress, $0.count > 0 { explicit_bzero(base, $0.count) } }
        bytes = []
        lines = []
        isCapturing = false
    }
}

@available(*, unavailable)
extension PageBuffer: Sendable {}
