import WardCore

/// `format [text|expanded|json|csv]`: how the shell writes tables from now on, or which way it
/// does now.
///
/// Text is for reading, in columns cut to the width or, expanded, each row's fields one a line
/// with nothing cut (psql's `\x`); JSON (one object per row) and CSV (RFC 4180, formulas defused) are for
/// copying a result into another program without retyping it. Messages stay text. A batch
/// chooses with `--format` before it starts, so its standard output is one format throughout.
struct FormatCommand: ShellCommand {
    static let syntax = CommandSyntax(
        "format",
        abstract: "Show tables as text, expanded text (one field a line), JSON or CSV; say which without a value.",
        discussion: "CSV cells starting with = + - @ get a leading ' so a spreadsheet never runs them.",
        operand: .word(name: "format", help: "text, expanded, json or csv.", required: false)
    )

    /// `expanded` is text with rows shown as fields: a way of showing text, not a batch's format.
    static let expandedName = "expanded"

    let format: BatchOutput.Format?
    let expanded: Bool

    init(_ arguments: ParsedArguments) throws(UsageError) {
        guard let word = arguments.operands.first else {
            format = nil
            expanded = false
            return
        }
        if word == Self.expandedName {
            format = .text
            expanded = true
            return
        }
        guard let format = BatchOutput.Format(rawValue: word) else {
            let allowed =
                [BatchOutput.Format.text.rawValue, Self.expandedName]
                + BatchOutput.Format.allCases.dropFirst().map(\.rawValue)
            throw UsageError(.invalidValue(word, for: "<format>", allowed: allowed), syntax: Self.syntax)
        }
        self.format = format
        expanded = false
    }

    func run(in shell: Shell) throws -> CommandResult {
        guard let output = shell.output as? TextOutput else {
            throw ShellError("a batch's format is set by --format when it starts.")
        }
        if let format {
            output.format = format
            output.expanded = expanded
        }
        let name = output.format == .text && output.expanded ? Self.expandedName : output.format.rawValue
        shell.write("Tables are shown as \(name).")
        return .succeeded
    }
}
