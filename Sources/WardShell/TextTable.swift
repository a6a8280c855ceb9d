/// Rows of text in aligned columns that fit a terminal width.
///
/// When the natural widths do not fit, the widest column gives up a character at a time until
/// the table fits (no column below `minimumColumn`), and cells longer than their column end in
/// `…`. Plain text only: no colour, so `NO_COLOR` and a dumb terminal read the same.
public struct TextTable: Sendable {
    public static let separator = "  "
    public static let minimumColumn = 4

    public var headers: [String]
    public var rows: [[String]]

    public init(headers: [String], rows: [[String]]) {
        self.headers = headers
        self.rows = rows
    }

    /// The lines of the table, header first, none longer than `width` (unless even the
    /// narrowest columns cannot fit).
    public func render(width: Int) -> [String] {
        let count = headers.count
        var widths = headers.map(\.count)
        for row in rows {
            for (index, cell) in row.prefix(count).enumerated() {
                widths[index] = max(widths[index], Self.flat(cell).count)
            }
        }
        let available = max(0, width - Self.separator.count * max(0, count - 1))
        while widths.reduce(0, +) > available {
            guard let widest = widths.indices.max(by: { widths[$0] < widths[$1] }),
                widths[widest] > Self.minimumColumn
            else { break }
            widths[widest] -= 1
        }
        func line(_ cells: [String]) -> String {
            var parts: [String] = []
            for index in 0..<count {
                let cell = Self.fit(index < cells.count ? Self.flat(cells[index]) : "", widths[index])
                let isLast = index == count - 1
                parts.append(isLast ? cell : cell + String(repeating: " ", count: widths[index] - cell.count))
            }
            var text = parts.joined(separator: Self.separator)
            while text.hasSuffix(" ") { text.removeLast() }
            return text
        }
        return [line(headers)] + rows.map(line)
    }

    /// Cuts `text` to `width` characters, marking the cut with `…`.
    public static func fit(_ text: String, _ width: Int) -> String {
        guard text.count > width else { return text }
        guard width > 1 else { return String(text.prefix(width)) }
        return String(text.prefix(width - 1)) + "…"
    }

    /// One line: a tab or a newline inside a cell would break the columns.
    static func flat(_ text: String) -> String {
        guard text.contains(where: { $0.isNewline || $0 == "\t" }) else { return text }
        return String(text.map { $0.isNewline || $0 == "\t" ? " " : $0 })
    }
}
