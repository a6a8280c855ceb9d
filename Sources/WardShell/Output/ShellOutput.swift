/// Where a command's results go: a terminal's text, or one JSON object per batch command.
///
/// Commands say what they found (`table`), what the reader should know (`message`) and why they
/// failed (`failure`); how that looks is the output's business, so one command serves the
/// person at the terminal and the script piping to jq.
public protocol ShellOutput: AnyObject {
    /// A sentence for the reader: "No patient matches."
    func message(_ text: String)
    /// Result rows.
    func table(_ table: TextTable)
    /// Why the command failed, without the `ward:` prefix.
    func failure(_ message: String)
}

/// Text, one line at a time: tables at `width`, failures as `ward: message`.
public final class TextOutput: ShellOutput {
    private let width: () -> Int
    private let print: (String) -> Void

    public init(width: @escaping () -> Int = TerminalWidth.current, print: @escaping (String) -> Void = { Swift.print($0) }) {
        self.width = width
        self.print = print
    }

    public func message(_ text: String) { print(text) }

    public func table(_ table: TextTable) {
        for line in table.render(width: width()) { print(line) }
    }

    public func failure(_ message: String) { print("ward: \(message)") }
}

@available(*, unavailable)
extension TextOutput: Sendable {}
