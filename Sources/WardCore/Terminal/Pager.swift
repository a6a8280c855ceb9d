import Glibc

/// Ward's own pager: a command's output taller than the window, a page at a time, with the
/// header of the table on screen kept at the top of every page.
///
/// Ward starts no pager program: `less` would read the terminal itself, and its keys would never
/// pass the chain (the idle timer would not see them, a lock could not wipe its screen). So the
/// front end hands every key that passed the chain to `handle(_:)`, and draws `screen()`.
///
/// Pure: no terminal, no clock. The text is a `PageBuffer`'s, wrapped here into rows of the
/// window's width (`DisplayWidth`: a CJK character takes two columns), and re-wrapped when the
/// width changes. Rows refer to the buffer's bytes; the only text of its own the pager holds is
/// the search the user typed, zeroed by `wipe()`.
///
/// Keys: space, f, Ctrl-F, Page Down: next page; b, Ctrl-B, Page Up: back; Enter, j, Down: one
/// row on; k, Up: one row back; g, Home: the first page; G, End: the last; `/` a word and Enter:
/// the next line holding it (case ignored); n: the next match; h or ?: these keys, on a screen
/// of their own until the next key; q: done.
///
/// - Important: Not `Sendable`: it reads a `PageBuffer`, which belongs to the loop's thread.
public struct Pager {
    /// What the front end does after a key.
    public enum Action: Equatable, Sendable {
        /// Draw `screen()` again.
        case redraw
        /// The user is done: back to the prompt.
        case quit
    }

    /// One screen row: bytes `start..<end` of buffer line `line`.
    struct Row: Equatable {
        var line: Int
        var start: Int
        var end: Int
    }

    /// The longest search kept; keys past it are ignored.
    public static let maximumSearch = 200

    private let buffer: PageBuffer
    /// The window: the last row is the status line.
    public private(set) var rows: Int
    public private(set) var columns: Int
    private var wrapped: [Row] = []
    /// For each buffer line, the header line it comes under (-1: none), found once.
    private let headerOf: [Int]
    /// The first row under the kept header.
    public private(set) var top = 0
    /// The search being typed after `/`, nil when none is.
    private var typing: [UInt8]?
    /// The last search, for `n`.
    private var search: [UInt8] = []
    /// Shown in the status line until the next key: not found, a plugin's notice.
    private var message: String?
    /// The keys are on screen in place of the page (`h`, `?`), until the next key.
    public private(set) var isShowingKeys = false

    /// What `h` and `?` show: every key, one a line, short enough for 80 columns.
    static let keyHelp = [
        "Keys of the pager:",
        "",
        "  space, f, Ctrl-F, Page Down   next page",
        "  b, Ctrl-B, Page Up            previous page",
        "  Enter, j, Down                one line on",
        "  k, y, Up                      one line back",
        "  g, <, Home                    first page",
        "  G, >, End                     last page",
        "  /word Enter                   the next line holding the word (case ignored)",
        "  n                             the next line holding it again",
        "  h, ?                          these keys",
        "  q, Ctrl-C                     back to the prompt; the last page stays on screen",
    ]

    public init(buffer: PageBuffer, rows: Int, columns: Int) {
        self.buffer = buffer
        self.rows = rows
        self.columns = columns
        wrapped = Self.wrap(buffer, width: max(1, columns))
        var header = -1
        headerOf = (0..<buffer.count).map { index in
            if buffer.isHeader(at: index) { header = index }
            return header
        }
    }

    /// The rows `buffer` takes at `columns`: what decides whether a command's output needs the
    /// pager at all.
    public static func rowCount(of buffer: PageBuffer, columns: Int) -> Int {
        wrap(buffer, width: max(1, columns)).count
    }

    // MARK: Layout

    /// Each line cut into rows of at most `width` columns; an empty line is one empty row.
    static func wrap(_ buffer: PageBuffer, width: Int) -> [Row] {
        var rows: [Row] = []
        rows.reserveCapacity(buffer.count)
        for (index, line) in buffer.lines.enumerated() {
            if buffer.isASCII(from: line.start, to: line.end) {
                var start = line.start
                repeat {
                    let end = min(line.end, start + width)
                    rows.append(Row(line: index, start: start, end: end))
                    start = end
                } while start < line.end
                continue
            }
            var start = line.start
            var offset = line.start
            var used = 0
            DisplayWidth.forEachCharacter(in: buffer.text(from: line.start, to: line.end)) { character, columns in
                if used + columns > width, offset > start {
                    rows.append(Row(line: index, start: start, end: offset))
                    start = offset
                    used = 0
                }
                offset += character.utf8.count
                used += columns
            }
            rows.append(Row(line: index, start: start, end: offset))
        }
        return rows
    }

    /// The window changed: the text is wrapped again at the new width, and the first line on
    /// screen stays first.
    public mutating func resize(rows: Int, columns: Int) {
        let line = wrapped.indices.contains(top) ? wrapped[top].line : 0
        self.rows = rows
        if columns != self.columns {
            self.columns = columns
            wrapped = Self.wrap(buffer, width: max(1, columns))
        }
        top = min(firstRow(of: line), lastTop)
    }

    /// The buffer line of the header kept above row `row`: the last header before it, unless
    /// the row is that header itself.
    func keptHeader(above row: Int) -> Int? {
        guard wrapped.indices.contains(row) else { return nil }
        let line = wrapped[row].line
        let index = headerOf[line]
        guard index >= 0 else { return nil }
        if index == line, wrapped[row].start == buffer.lines[line].start { return nil }  // the header is on top
        return index
    }

    /// Rows of text under the header and above the status line when row `top` is first.
    func bodyRows(from top: Int) -> Int {
        max(1, rows - 1 - (keptHeader(above: top) == nil ? 0 : 1))
    }

    /// The last first row: the last page is a full one.
    var lastTop: Int {
        var candidate = max(0, wrapped.count - max(1, rows - 1))
        while candidate < wrapped.count - 1, candidate + bodyRows(from: candidate) < wrapped.count { candidate += 1 }
        return candidate
    }

    private func firstRow(of line: Int) -> Int {
        wrapped.firstIndex { $0.line >= line } ?? max(0, wrapped.count - 1)
    }

    /// Whether the last row is on screen.
    public var isAtEnd: Bool { top >= lastTop }

    // MARK: Moving

    public mutating func nextPage() {
        top = min(lastTop, top + bodyRows(from: top))
    }

    /// Back a page: to the first row whose page ends where this one begins.
    public mutating func previousPage() {
        var candidate = max(0, top - max(1, rows - 1))
        while candidate < top - 1, candidate + bodyRows(from: candidate) < top { candidate += 1 }
        top = max(0, min(candidate, top - 1))
    }

    public mutating func scroll(by rows: Int) {
        top = max(0, min(lastTop, top + rows))
    }

    /// Finds `word` (case ignored) in the lines after the first one on screen; brings the line
    /// holding it to the top. False when no later line holds it.
    @discardableResult
    public mutating func find(_ word: String) -> Bool {
        let needle = Array(word.lowercased().utf8)
        guard !needle.isEmpty, wrapped.indices.contains(top) else { return false }
        for line in (wrapped[top].line + 1)..<buffer.count
        where Array(buffer.text(at: line).lowercased().utf8).firstRange(of: needle) != nil {
            top = min(firstRow(of: line), lastTop)
            return true
        }
        return false
    }

    // MARK: Keys

    /// What a key that passed the chain does.
    public mutating func handle(_ key: [UInt8]) -> Action {
        message = nil
        if typing != nil { return type(key) }
        if isShowingKeys {
            isShowingKeys = false
            return key == Array("q".utf8) || key == Array("Q".utf8) ? .quit : .redraw
        }
        switch key {
        case [0x20], Array("f".utf8), [0x06], Array("\u{1B}[6~".utf8):
            if isAtEnd { message = "(end) q: back to the prompt  b: back" } else { nextPage() }
        case Array("b".utf8), [0x02], Array("\u{1B}[5~".utf8):
            previousPage()
        case [0x0D], [0x0A], Array("j".utf8), Array("\u{1B}[B".utf8), Array("\u{1B}OB".utf8):
            scroll(by: 1)
        case Array("k".utf8), Array("y".utf8), Array("\u{1B}[A".utf8), Array("\u{1B}OA".utf8):
            scroll(by: -1)
        case Array("g".utf8), Array("<".utf8), Array("\u{1B}[H".utf8), Array("\u{1B}OH".utf8), Array("\u{1B}[1~".utf8):
            top = 0
        case Array("G".utf8), Array(">".utf8), Array("\u{1B}[F".utf8), Array("\u{1B}OF".utf8), Array("\u{1B}[4~".utf8):
            top = lastTop
        case Array("q".utf8), Array("Q".utf8):
            return .quit
        case Array("h".utf8), Array("H".utf8), Array("?".utf8):
            isShowingKeys = true
        case Array("/".utf8):
            typing = []
        case Array("n".utf8):
            if search.isEmpty {
                message = "No search yet: type / and a word."
            } else {
                findAndSay(search)
            }
        default:
            break  // Ctrl-L and any other key: the page is drawn again
        }
        return .redraw
    }

    /// Whether a search is being typed after `/`.
    public var isTypingSearch: Bool { typing != nil }

    /// Gives up the search being typed (Ctrl-C), zeroing it.
    public mutating func cancelSearch() {
        zero(&typing)
    }

    /// A key while a search is typed: Enter looks, Backspace takes a character back, Escape
    /// or Ctrl-G gives up; printable text is added.
    private mutating func type(_ key: [UInt8]) -> Action {
        guard var text = typing else { return .redraw }
        switch key {
        case [0x0D], [0x0A]:
            zero(&typing)
            typing = nil
            if !text.isEmpty {
                zero(&search)
                search = text
            }
            if !search.isEmpty { findAndSay(search) }
            zero(&text)
        case [0x7F], [0x08]:
            var word = String(decoding: text, as: UTF8.self)
            if word.isEmpty {
                typing = nil
            } else {
                word.removeLast()
                text = Array(word.utf8)
                typing = text
            }
        case [0x1B], [0x07]:
            zero(&typing)
            typing = nil
        case [0x15]:  // Ctrl-U: start again
            zero(&typing)
            typing = []
        default:
            guard !key.isEmpty, key.allSatisfy({ $0 >= 0x20 && $0 != 0x7F }),
                text.count + key.count <= Self.maximumSearch
            else { break }
            text += key
            typing = text
        }
        return .redraw
    }

    private mutating func findAndSay(_ word: [UInt8]) {
        let text = String(decoding: word, as: UTF8.self)
        if !find(text) { message = "Not found after this line: \(Sanitizer.line(text))" }
    }

    private func zero(_ bytes: inout [UInt8]?) {
        guard var kept = bytes else { return }
        bytes = nil
        zero(&kept)
    }

    private func zero(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { if let base = $0.baseAddress, $0.count > 0 { explicit_bzero(base, $0.count) } }
        bytes = []
    }

    /// A plugin's notice (the idle warning): shown in the status line until the next key.
    public mutating func show(notice: String) {
        message = Sanitizer.line(notice)
    }

    // MARK: Drawing

    /// The screen, top to bottom: the kept header, the rows, the status line; `rows` lines.
    /// While the keys are shown (`h`), they are the screen.
    public func screen() -> [String] {
        if isShowingKeys {
            var lines = Self.keyHelp.prefix(max(0, rows - 1)).map { DisplayWidth.prefix($0, columns: columns) }
            while lines.count < rows - 1 { lines.append("") }
            lines.append(DisplayWidth.prefix("Any key: back to the page  q: quit", columns: columns))
            return lines
        }
        return page()
    }

    /// What draws `lines` (a `screen()`) over the whole window: each from the top-left corner,
    /// the rest of its row cleared, and whatever is below the last cleared.
    public static func drawing(_ lines: [String]) -> String {
        var text = "\u{1B}[H"
        for (index, line) in lines.enumerated() {
            text += line + "\u{1B}[K"
            if index < lines.count - 1 { text += "\r\n" }
        }
        return text + "\u{1B}[J"
    }

    /// The page as q leaves it on the normal screen: the kept header and the rows on screen,
    /// without the status line or the blank rows under the last page.
    public func lastPage() -> [String] {
        var lines = Array(page().dropLast())
        while lines.last?.isEmpty == true { lines.removeLast() }
        return lines
    }

    private func page() -> [String] {
        var lines: [String] = []
        if let header = keptHeader(above: top) {
            lines.append(buffer.style.header(DisplayWidth.prefix(buffer.text(at: header), columns: columns)))
        }
        let end = min(wrapped.count, top + bodyRows(from: top))
        for row in wrapped[min(top, end)..<end] {
            let text = buffer.text(from: row.start, to: row.end)
            lines.append(buffer.isHeader(at: row.line) ? buffer.style.header(text) : text)
        }
        while lines.count < rows - 1 { lines.append("") }
        lines.append(DisplayWidth.prefix(status(lastRow: end), columns: columns))
        return lines
    }

    /// What the last line says: the search being typed, a message, or where the page is and
    /// which keys move it.
    func status(lastRow end: Int) -> String {
        if let typing { return "/" + Sanitizer.line(String(decoding: typing, as: UTF8.self)) }
        if let message { return message }
        guard !wrapped.isEmpty else { return "(end)" }
        let first = wrapped[min(top, wrapped.count - 1)].line + 1
        let last = wrapped[max(0, end - 1)].line + 1
        let place = "lines \(first)-\(last) of \(buffer.count)"
        // Short enough for 80 columns: q, the way out, must not be cut off; h after it may be.
        let keys = "(space: more, b: back, /: search, q: quit, h: keys)"
        return (end >= wrapped.count ? "-- end -- " : "-- more -- ") + place + " " + keys
    }

    // MARK: Wipe

    /// Zeroes the search typed and the last one, and forgets the message (it may quote them).
    public mutating func wipe() {
        zero(&typing)
        zero(&search)
        message = nil
        isShowingKeys = false
        wrapped = []
        top = 0
    }
}

@available(*, unavailable)
extension Pager: Sendable {}
