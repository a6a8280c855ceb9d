import FoundationEssentials
import WardCore
import WardRecords

/// `note TEXT`: appends a note to the current chart, signed with the user's name and timed.
///
/// The text is the rest of the line exactly as typed: apostrophes, quotes, backslashes and runs of
/// spaces are kept, nothing needs escaping. `note` alone reads a note of several lines, up to a
/// line holding only `.` (at the prompt and in a batch), kept with its line breaks.
///
/// Clinicians only: a clerk or an auditor never writes into a chart. The audit log holds the
/// write's `started` record before the store saves the note (`Shell.writing`), and the store
/// saves it before the open chart shows it, so what is on screen is what was kept. The chart is
/// `wrote` (`started`, then `ok`, or `failed` when the store refused the note), never with the
/// note's text. The note goes on the current chart only, checked again when a note of several
/// lines ends.
struct NoteCommand: ShellCommand {
    static let syntax = CommandSyntax(
        "note",
        abstract: "Add a signed, timed note to the current chart.",
        discussion: "'note' alone reads a note of several lines; a line holding only '.' ends it.",
        operand: .text(name: "text", help: "The note's text, as typed; quotes are not needed.")
    )

    static let allowedRoles: Set<Role>? = Shell.clinicalRoles

    static let currentChartAccess: RecordAccess.Action? = .wrote

    /// The prompt for each further line of a note of several lines.
    static let morePrompt = "note> "

    /// The text after `note`, as typed; empty for a note of several lines.
    let text: String

    init(_ arguments: ParsedArguments) throws(UsageError) {
        text = arguments.operands.first ?? ""
    }

    func run(in shell: Shell) throws -> CommandResult {
        try Self.write(text, correcting: nil, in: shell)
    }

    /// Saves `text` as a note, or reads a note of several lines when it is empty: `note`'s and
    /// `correct`'s one way, so a correction is written exactly as a note is.
    static func write(_ text: String, correcting corrects: Int64?, in shell: Shell) throws -> CommandResult {
        guard text.isEmpty else { return try save(text, correcting: corrects, in: shell) }
        _ = try shell.currentChart()
        if shell.isInteractive {
            shell.write("Type the note; a line holding only '.' ends it.")
        }
        return readLines(into: NoteLines(), correcting: corrects, in: shell)
    }

    /// The lines of a note of several lines so far, shared by each line's reader so that a long
    /// note costs time linear in its length.
    private final class NoteLines {
        var lines: [String] = []
        var size = 0
    }

    /// Reads the next line of a note of several lines; `.` alone ends it and saves what came.
    private static func readLines(into note: NoteLines, correcting corrects: Int64?, in shell: Shell) -> CommandResult {
        shell.readText(morePrompt) { [unowned shell] line in
            guard let line else {
                throw ShellError("the note's end (a line holding only '.') never came; nothing was saved.")
            }
            guard line.trimming(.whitespace) == "." else {
                note.size += line.utf8.count + 1
                guard note.size <= Line.maximumLength else {
                    throw ShellError("the note is longer than 1 MiB; nothing was saved. Split it in two notes.")
                }
                note.lines.append(line)
                return readLines(into: note, correcting: corrects, in: shell)
            }
            return try save(note.lines.joined(separator: "\n"), correcting: corrects, in: shell)
        }
    }

    private static func save(_ text: String, correcting corrects: Int64?, in shell: Shell) throws -> CommandResult {
        if text.allSatisfy(\.isWhitespace) {
            throw ShellError(
                "the note is empty; nothing was saved. Type it after 'note', or 'note' alone for several lines."
            )
        }
        let chart = try shell.currentChart()
        let note = try shell.writing(chart.mrn) {
            try shell.records().addNote(
                mrn: chart.mrn,
                author: shell.user ?? "",
                text: text,
                at: shell.now(),
                corrects: corrects
            )
        }
        chart.append(note)
        // The note's own number is in `show notes`, where it is read beside the others.
        let what = corrects.map { "Correction of note \($0)" } ?? "Note"
        shell.write(
            "\(what) added to \(PatientLabel.full(chart.patient)) at \(ChartFormat.time(note.time)), signed \(note.author).",
            .line
        )
        return .succeeded
    }
}
