import FoundationEssentials
import WardCore

/// Where a command's results go: a terminal's text, or one JSON object per batch command.
///
/// Commands say what they found (`table`), what the reader should know (`message`) and why they
/// failed (`failure`); how that looks is the output's business, so one command serves the
/// person at the terminal and the script piping to jq.
public protocol ShellOutput: AnyObject {
    /// A sentence for the reader: "No patient matches." `.line` when the sentence is one line by
    /// construction and quotes a record field (a name), so a newline in the field is shown as
    /// `\n`; `.text` when Ward lays it out over several lines (help).
    func message(_ text: String, _ mode: Sanitizer.Mode)
    /// Result rows.
    func table(_ table: TextTable)
    /// Why the command failed, without the `ward:` prefix.
    func failure(_ message: String)
}

extension ShellOutput {
    /// A message that may span lines Ward broke itself.
    public func message(_ text: String) { message(text, .text) }
}

/// Text, one line at a time: tables at `width`, failures as `ward: message`.
///
/// Messages and failures quote record fields, user names and values typed or imported: each
/// goes through `Sanitizer` here, once, so no command has to remember (a newline Ward wrote in a
/// message stays a line break; every other control is shown as an escape).
///
/// A table's header line goes to `printHeader` when one is given: at a terminal that pages
/// (`PageBuffer`), the pager keeps it at the top of every page.
///
/// `format` (the shell's `format` command) writes tables as JSON, one object per row, or as CSV
/// (`CSV`), for copying into another program; messages stay text.
public final class TextOutput: ShellOutput {
    private let width: () -> Int
    private let print: (String) -> Void
    private let printHeader: ((String) -> Void)?
    public var format: BatchOutput.Format = .text
    /// Text shows each table's rows as their fields, one a line (`format expanded`:
    /// `TextTable.Layout.expanded`), where a row of columns would cut its cells.
    public var expanded = false
    /// Colour for table headers at a terminal (`TerminalStyle`); plain unless the shell's
    /// executable says so.
    public var style = TerminalStyle.plain
    private let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    public init(
        width: @escaping () -> Int = TerminalWidth.current,
        print: @escaping (String) -> Void = { Swift.print($0) },
        printHeader: ((String) -> Void)? = nil
    ) {
        self.width = width
        self.print = print
        self.printHeader = printHeader
    }

    /// A message Ward laid out (`.text`: help, the banner) breaks between words at the width,
    /// where the terminal would cut a word at its edge (`WordWrap`).
    public func message(_ text: String, _ mode: Sanitizer.Mode) {
        let text = Sanitizer.sanitize(text, mode)
        print(mode == .text ? WordWrap.text(text, width: width()) : text)
    }

    public func table(_ table: TextTable) {
        switch format {
        case .text:
            let layout = expanded && table.layout == .columns ? .expanded : table.layout
            let lines = table.render(width: width(), layout: layout)
            // Only `.columns` has a header line to keep. A pager's buffer styles the header
            // itself, after it has measured it.
            if layout == .columns, let printHeader, let header = lines.first {
                printHeader(header)
                for line in lines.dropFirst() { print(line) }
            } else {
                for (index, line) in lines.enumerated() {
                    print(index == 0 && layout == .columns ? style.header(line) : line)
                }
            }
        case .json:
            for object in table.objects {
                // Strings, numbers, booleans and null only: encoding cannot fail.
                guard let data = try? encoder.encode(object) else { continue }
                print(Sanitizer.json(String(decoding: data, as: UTF8.self)))
            }
        case .csv:
            for record in table.csvRecords { print(CSV.record(record) + "\r") }
        }
    }

    public func failure(_ message: String) { print("ward: " + Sanitizer.text(message)) }
}

@available(*, unavailable)
extension TextOutput: Sendable {}
