import WardCore

/// `format [text|json|csv]`: how the shell writes tables from now on, or which way it does now.
///
/// Text is for reading; JSON (one object per row) and CSV (RFC 4180, formulas defused) are for
/// copying a result into another program without retyping it. Messages stay text. A batch
/// chooses with `--format` before it starts, so its standard output is one format throughout.
struct FormatCommand: ShellCommand {
    static let syntax = CommandSyntax(
        "format",
        abstract: "Show tables as text, JSON (one object per row) or CSV; say which without a value.",
        discussion: "CSV cells starting with = + - @ get a leading ' so a spreadsheet never runs them.",
        operand: .word(name: "format", help: "text, json or csv.", required: false)
    )

    let format: BatchOutput.Format?

    init(_ arguments: ParsedArguments) throws(UsageError) {
        guard let word = arguments.operands.first else {
            format = nil
            return
        }
        guard let format = BatchOutput.Format(rawValue: word) else {
            throw UsageError(
                .invalidValue(word, for: "<format>", allowed: BatchOutput.Format.allCases.map(\.rawValue)),
                syntax: Self.syntax
            )
        }
        self.format = format
    }

    func run(in shell: Shell) throws -> CommandResult {
        guard let output = shell.output as? TextOutput else {
            throw ShellError("a batch's format is set by --format when it starts.")
        }
        if let format { output.format = format }
        shell.write("Tables are shown as \(output.format.rawValue).")
        return .succeeded
    }
}
