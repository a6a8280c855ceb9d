import WardCore
import WardRecords

/// `note TEXT...`: appends a note to the current chart, signed with the user's name and timed.
///
/// Clinicians only: a clerk or an auditor never writes into a chart. The audit log holds the
/// write's `started` record before the store saves the note (`Shell.writing`), and the store
/// saves it before the open chart shows it, so what is on screen is what was kept. The chart is
/// `wrote` (`started`, then `ok`, or `failed` when the store refused the note), never with the
/// note's text.
struct NoteCommand: ShellCommand {
    static let syntax = CommandSyntax(
        "note",
        abstract: "Add a signed, timed note to the current chart.",
        operand: .text(name: "text", help: "The note's text; quotes are not needed.")
    )

    static let allowedRoles: Set<Role>? = Shell.clinicalRoles

    static let currentChartAccess: RecordAccess.Action? = .wrote

    /// The words after `note`, joined by one space each: quotes gone, as a shell would read them.
    let text: String

    init(_ arguments: ParsedArguments) throws(UsageError) {
        text = arguments.operands.joined(separator: " ")
        if text.allSatisfy(\.isWhitespace) {
            throw Self.usageError("Type the note after 'note', for example 'note Seen in clinic, stable.'.")
        }
    }

    func run(in shell: Shell) throws -> CommandResult {
        let chart = try shell.currentChart()
        let note = try shell.writing(chart.mrn) {
            try shell.records().addNote(mrn: chart.mrn, author: shell.user ?? "", text: text, at: shell.now())
        }
        chart.append(note)
        shell.write("Note added to \(chart.mrn) at \(ChartFormat.time(note.time)), signed \(note.author).", .line)
        return .succeeded
    }
}
