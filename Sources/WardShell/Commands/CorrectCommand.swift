import WardCore
import WardRecords

/// `correct N TEXT`: adds a note to the current chart that corrects its note number N.
///
/// Notes are only ever added: what a colleague read and acted on stays in the chart as it was,
/// and the correction is a new note, signed and timed, that names it. `show notes` lists the
/// two beside each other. The store checks that note N is of this chart, in the statement that
/// adds the correction. Written, audited and read exactly as `note` is (`NoteCommand.write`):
/// `correct N` alone reads a correction of several lines.
struct CorrectCommand: ShellCommand {
    static let syntax = CommandSyntax(
        "correct",
        abstract: "Add a note to the current chart that corrects one of its notes.",
        discussion: "The first word is the number of the note corrected, as 'show notes' lists it; "
            + "the rest is the correction, as typed. 'correct N' alone reads a correction of several lines; "
            + "a line holding only '.' ends it. The note corrected stays as it was.",
        operand: .text(name: "note-and-text", help: "The note's number, then the correction's text.")
    )

    static let allowedRoles: Set<Role>? = Shell.clinicalRoles

    static let currentChartAccess: RecordAccess.Action? = .wrote

    /// The number of the note corrected.
    let corrects: Int64
    /// The correction's text, as typed; empty for one of several lines.
    let text: String

    init(_ arguments: ParsedArguments) throws(UsageError) {
        let operand = Substring(arguments.operands.first ?? "")
        let number = operand.prefix { !CommandSyntax.isBlank($0) }
        guard !number.isEmpty else { throw UsageError(.missingArgument("<note-and-text>"), syntax: Self.syntax) }
        guard let corrects = Int64(number), corrects > 0 else {
            throw UsageError(
                .invalid("'\(number)' is not a note's number; 'show notes --all' lists them"),
                syntax: Self.syntax
            )
        }
        self.corrects = corrects
        text = String(operand.dropFirst(number.count).drop(while: CommandSyntax.isBlank))
    }

    func run(in shell: Shell) throws -> CommandResult {
        try NoteCommand.write(text, correcting: corrects, in: shell)
    }
}
