import FoundationEssentials
import WardCore

/// Comma-separated values as RFC 4180 writes them, for `ward --batch --format csv`.
///
/// A cell is quoted when it holds a comma, a double quote, a carriage return or a line feed, and
/// its double quotes are doubled; records end in CRLF. Two defences come first, because a CSV
/// file is opened in a spreadsheet and read on a terminal:
///
/// - Formula injection: a cell beginning with `=`, `+`, `-`, `@`, a tab or a carriage return is
///   a formula to Excel and LibreOffice (`=HYPERLINK(...)` in an imported name runs when the file
///   is opened). Such a cell gets a leading `'`, as OWASP's "CSV Injection" advises, so it is
///   shown as text. A negative number therefore reads `'-5`: the price of never running a cell.
/// - Terminal controls: every cell passes `Sanitizer.text` first, so an escape sequence in a
///   record is written as `\e`, never sent; a line break in a cell (a note) stays one, quoted.
public enum CSV {
    /// The characters that make a spreadsheet read a cell as a formula.
    static let formulaStarts: Set<Character> = ["=", "+", "-", "@", "\t", "\r"]

    /// One record, without its CRLF (the writer ends it).
    public static func record(_ cells: [String]) -> String {
        cells.map(cell).joined(separator: ",")
    }

    /// One cell: sanitized, defused, then quoted if it must be.
    static func cell(_ text: String) -> String {
        var value = Sanitizer.text(text)
        if let first = value.first, formulaStarts.contains(first) { value = "'" + value }
        guard value.contains(where: { $0 == "," || $0 == "\"" || $0 == "\r" || $0 == "\n" }) else {
            return value
        }
        // Every quote scalar is doubled, one with a combining mark after it too: a CSV reader
        // reads bytes, not characters.
        return "\"" + String(value.unicodeScalars.replacing("\"".unicodeScalars, with: "\"\"".unicodeScalars)) + "\""
    }
}
