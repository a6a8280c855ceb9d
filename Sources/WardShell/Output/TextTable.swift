import WardCore

/// A command's result rows: aligned columns that fit a terminal width as text, or one object
/// per row as JSON (`ward --batch --format json`), typed when the command gave `values`.
///
/// When the natural widths do not fit, the widest column gives up a character at a time until
/// the table fits (no column below `minimumColumn`), and cells longer than their column end in
/// `…`. Plain text only: a header's colour, when on, is `TextOutput`'s (`TerminalStyle`).
///
/// Every cell is record text, hostile until shown otherwise: `render` passes each through
/// `Sanitizer` before measuring it, so a cell's controls are shown (`\e`, `\r`, `\u202E`), never
/// sent, and the columns line up on what the terminal really draws.
public struct TextTable: Sendable {
    public static let separator = "  "
    public static let minimumColumn = 4

    /// How text shows the rows. JSON ignores it: each row is an object keyed by `keys`.
    public enum Layout: Sendable {
        /// Aligned columns under a header line.
        case columns
        /// Aligned columns without the header line: one record's fields (`show summary`).
        case fields
        /// Each row as a heading of all but its last cell, then the last cell wrapped to the
        /// width and indented: text that is read, not scanned (`show notes`).
        case paragraphs
        /// Each row as its fields, one a line, `HEADER | value`, under a `-[ RECORD n ]-` line,
        /// as psql's `\x` shows them: a value too long for the width goes on over the next
        /// lines, never cut (`show labs --expanded`, `format expanded`).
        case expanded
    }

    public var headers: [String]
    public var rows: [[String]]
    /// The columns' names in JSON: the headers in lower case unless given.
    public var keys: [String]
    public var layout: Layout
    /// Each row as JSON writes it, typed (`TableValue`), when the command gave them: numbers,
    /// instants and codes with their systems, and keys text has no column for. Nil: JSON writes
    /// `rows` as strings under `keys`.
    public var values: [[String: TableValue]]? { makeValues?() }

    /// Each row as CSV and JSON write it, cell for cell under `keys`, when it holds more than
    /// text shows: an audit record's every field, as `ward audit show --format csv` writes them,
    /// where text shows nine columns. Nil: `rows`.
    public var fieldRows: [[String]]?

    /// What CSV writes: `keys`, then each row (`fieldRows` when given).
    public var csvRecords: [[String]] { [keys] + (fieldRows ?? rows) }

    /// Builds `values` when JSON asks for them. Text and CSV never do, and a `find`'s twenty
    /// dictionaries, built for every search, were a tenth of a text batch's `find`
    /// (Benchmarks/README.md).
    private let makeValues: (@Sendable () -> [[String: TableValue]])?

    public init(
        headers: [String],
        rows: [[String]],
        keys: [String]? = nil,
        layout: Layout = .columns,
        values: [[String: TableValue]]? = nil
    ) {
        let makeValues: (@Sendable () -> [[String: TableValue]])? =
            if let values { { values } } else { nil }
        self.init(headers: headers, rows: rows, keys: keys, layout: layout, makeValues: makeValues)
    }

    /// A table whose typed rows are built only if JSON writes it (`values`).
    public init(
        headers: [String],
        rows: [[String]],
        keys: [String]? = nil,
        layout: Layout = .columns,
        values: @escaping @Sendable () -> [[String: TableValue]]
    ) {
        self.init(headers: headers, rows: rows, keys: keys, layout: layout, makeValues: values)
    }

    private init(
        headers: [String],
        rows: [[String]],
        keys: [String]?,
        layout: Layout,
        makeValues: (@Sendable () -> [[String: TableValue]])?
    ) {
        self.headers = headers
        self.rows = rows
        self.keys = keys ?? headers.map { $0.lowercased() }
        self.layout = layout
        self.makeValues = makeValues
    }

    /// The rows as JSON objects: `values` when given, else each cell (of `fieldRows` when
    /// given) as a string under its key.
    public var objects: [[String: TableValue]] {
        if let values { return values }
        return (fieldRows ?? rows).map { row in
            Dictionary(zip(keys, row.map(TableValue.text))) { first, _ in first }
        }
    }

    /// The lines of the table as text, none longer than `width` (unless even the narrowest
    /// columns cannot fit).
    public func render(width: Int) -> [String] {
        render(width: width, layout: layout)
    }

    /// The lines as `layout` lays the rows out, whatever the table's own.
    public func render(width: Int, layout: Layout) -> [String] {
        switch layout {
        case .columns: columns(width: width)
        case .fields: Array(columns(width: width).dropFirst())
        case .paragraphs: paragraphs(width: width)
        case .expanded: expanded(width: width)
        }
    }

    private func expanded(width: Int) -> [String] {
        let labels = headers.map(Sanitizer.line)
        let labelWidth = labels.map(DisplayWidth.of).max() ?? 0
        let valueWidth = max(20, width - labelWidth - 3)
        var lines: [String] = []
        for (number, row) in rows.enumerated() {
            let title = "-[ RECORD \(number + 1) ]"
            lines.append(title + String(repeating: "-", count: max(0, min(width, labelWidth + 3 + 20) - title.count)))
            for (index, label) in labels.enumerated() {
                let pad = String(repeating: " ", count: labelWidth - DisplayWidth.of(label))
                let value = Sanitizer.line(index < row.count ? row[index] : "")
                for (part, text) in Self.wrap(value, width: valueWidth).enumerated() {
                    let head = part == 0 ? label + pad : String(repeating: " ", count: labelWidth)
                    lines.append(Self.trimmingTrailingSpaces(Array((head + " | " + text).utf8)))
                }
            }
        }
        return lines
    }

    private func paragraphs(width: Int) -> [String] {
        var lines: [String] = []
        for row in rows {
            lines.append(row.dropLast().map(Sanitizer.line).joined(separator: Self.separator))
            // A newline in the paragraph stays a line break, which Ward writes itself, indented.
            let paragraph = Sanitizer.text(row.last ?? "")
            lines += Self.wrap(paragraph, width: max(20, width - 2)).map { "  " + $0 }
        }
        return lines
    }

    /// Words of `text` in lines of at most `width` characters; a longer word is cut.
    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            // The line's length is kept, not counted again per word: `String.count` walks every
            // character, and with no width (a batch's uncut text) a 1 MiB note is one line, so
            // counting it per word was quadratic.
            var line = ""
            var length = 0
            for word in paragraph.split(separator: " ") {
                var word = Substring(word)
                var wordLength = word.count
                while wordLength > width {
                    if !line.isEmpty {
                        lines.append(line)
                        line = ""
                        length = 0
                    }
                    lines.append(String(word.prefix(width)))
                    word = word.dropFirst(width)
                    wordLength -= width
                }
                if line.isEmpty {
                    line = String(word)
                    length = wordLength
                } else if length + 1 + wordLength <= width {
                    line += " "
                    line += word
                    length += 1 + wordLength
                } else {
                    lines.append(line)
                    line = String(word)
                    length = wordLength
                }
            }
            lines.append(line)
        }
        return lines
    }

    /// Each cell is sanitized and measured once: counting characters walks grapheme clusters,
    /// and a batch draws a table for every command. A line is laid out in one byte buffer, kept
    /// for the next: appending cells and padding to a `String`, then dropping the padding after
    /// the last cell a space at a time, cost as much again as the table (Benchmarks/README.md).
    private func columns(width: Int) -> [String] {
        let count = headers.count
        let table = ([headers] + rows).map { row in
            (0..<count).map { index -> (text: String, length: Int) in
                let text = index < row.count ? Sanitizer.line(row[index]) : ""
                return (text, DisplayWidth.of(text))
            }
        }
        var widths = Array(repeating: 0, count: count)
        for row in table {
            for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.length) }
        }
        let available = max(0, width - Self.separator.count * max(0, count - 1))
        while widths.reduce(0, +) > available {
            guard let widest = widths.indices.max(by: { widths[$0] < widths[$1] }),
                widths[widest] > Self.minimumColumn
            else { break }
            widths[widest] -= 1
        }
        var line: [UInt8] = []
        return table.map { row in
            line.removeAll(keepingCapacity: true)
            for (index, cell) in row.enumerated() {
                if index > 0 { line.append(contentsOf: Self.separator.utf8) }
                if cell.length > widths[index] {
                    line.append(contentsOf: Self.fit(cell.text, widths[index]).utf8)
                } else {
                    line.append(contentsOf: cell.text.utf8)
                    if index < count - 1 {
                        line.append(contentsOf: repeatElement(UInt8(ascii: " "), count: widths[index] - cell.length))
                    }
                }
            }
            return Self.trimmingTrailingSpaces(line)
        }
    }

    /// `line` as text without the spaces it ends in: what removing its last character while it
    /// is `" "` leaves. The bytes are dropped at once; but a space after a prepended concatenation
    /// mark (U+0600 and its kind, which join what follows them into one character) is part of
    /// that character, not a `" "`, and stays.
    static func trimmingTrailingSpaces(_ line: [UInt8]) -> String {
        var end = line.count
        while end > 0, line[end - 1] == UInt8(ascii: " ") { end -= 1 }
        var text = String(decoding: line[..<end], as: UTF8.self)
        // Only a character ending in a non-ASCII byte can take a space into itself.
        if end < line.count, end > 0, line[end - 1] >= 0x80, let last = text.last, (String(last) + " ").count == 1 {
            text += " "
        }
        return text
    }

    /// Cuts `text` to `width` columns (display width: a CJK character takes two), marking the
    /// cut with `…` and padding to `width` when a wide character did not fit whole.
    public static func fit(_ text: String, _ width: Int) -> String {
        guard DisplayWidth.of(text) > width else { return text }
        guard width > 1 else { return DisplayWidth.prefix(text, columns: width) }
        let cut = DisplayWidth.prefix(text, columns: width - 1) + "…"
        return cut + String(repeating: " ", count: max(0, width - DisplayWidth.of(cut)))
    }
}
