import WardCore
import WardRecords

/// `find TEXT...`: patients by name prefix (several words, in any order) or by MRN, best first.
///
/// Shows only what choosing a chart needs (MRN, name, birth date, sex), so every role may run
/// it: a clerk's work starts here too. Restricted patients are marked, not hidden: the user
/// learns before `open` that a reason will be asked for. Each patient shown is `listed`: the
/// row is patient data, so an auditor asking who saw a patient finds searches too; what was
/// searched for is never recorded (a name is patient data). A search that fails is one `failed`
/// list naming no record (`noRecord`).
///
/// The rows are numbered (`#`), and the shell keeps their MRNs (`Shell.lastFindRows`, wiped on
/// lock) so that `open 2` opens the second and Tab completes them.
struct FindCommand: ShellCommand {
    static let syntax = CommandSyntax(
        "find",
        abstract: "Find patients by name (prefixes, any order) or by MRN.",
        discussion: """
            A birth date or its year narrows the names: 'find smith 1989-10-26', 'find smith 1989'.
            FAMILY,G finds a family name and a given name's start, as VistA writes them: 'find smith,j'.
            When nothing matches, names one letter away from a word of five letters or more are listed.
            """,
        operand: .text(
            name: "text",
            help: "Name prefixes (for example 'lov ada' or o'brien), or an MRN; typed as they are, no quotes needed."
        ),
        options: [
            .init("all", help: "List every match (up to \(allLimit)), a page at a time, not only the first \(limit).")
        ]
    )

    /// How many rows one answer shows; the rest are counted.
    static let limit = 20

    /// How many rows `find --all` shows: every `open N` of them works.
    static let allLimit = 1000

    /// The most distinct words one search takes, counted as the index splits them (`a.b` is
    /// two). A name has a few; the full-text index's cost grows faster than the number of words,
    /// so a line of thousands would hold Ward for seconds.
    static let maximumWords = 32

    /// What to look for, as typed.
    let text: String
    /// `--all`: every match up to `allLimit`.
    let all: Bool

    /// The record a failed search names: none (what was typed may be a name, so it is not kept).
    static let noRecord = ""

    init(_ arguments: ParsedArguments) throws(UsageError) {
        text = arguments.operands.first ?? ""
        all = arguments.flags.contains("all")
        if text.allSatisfy(\.isWhitespace) {
            throw Self.usageError("Type a name or an MRN to look for, for example 'find lovelace ada'.")
        }
        if PatientSearch.distinctWordCount(text) > Self.maximumWords {
            throw Self.usageError(
                "Type at most \(Self.maximumWords) different words to look for; a name has fewer."
            )
        }
    }

    /// Shows `result`'s rows, numbered, notes each as `listed`, and keeps their MRNs as the rows
    /// `open N` picks from (`open` with an ambiguous MRN prefix lists its candidates so too).
    static func show(_ result: SearchResult, in shell: Shell) {
        for match in result.matches { shell.noteAccess(.listed, match.mrn, .ok) }
        let rows = result.matches.enumerated().map { index, match in
            [
                String(index + 1), match.mrn, PatientLabel.name(given: match.given, family: match.family),
                PatientLabel.born(match.birthDate), match.sex.rawValue, match.restricted ? "(R)" : "",
            ]
        }
        shell.keepFindRows(result.matches)
        shell.write(
            TextTable(
                headers: ["#", "MRN", "NAME", "BORN", "SEX", ""],
                rows: rows,
                keys: ["row", "mrn", "name", "born", "sex", "restricted"],
                values: {
                    result.matches.enumerated().map { index, match in
                        [
                            "row": .number(Double(index + 1)), "mrn": .text(match.mrn),
                            "name": .text(ChartFormat.name(given: match.given, family: match.family)),
                            "born": .text(match.birthDate), "sex": .text(match.sex.rawValue),
                            "restricted": .bool(match.restricted),
                        ]
                    }
                }
            )
        )
    }

    func run(in shell: Shell) throws -> CommandResult {
        let result: SearchResult
        do {
            result = try shell.records().find(text, limit: all ? Self.allLimit : Self.limit)
        } catch {
            // A search that failed (a dropped database connection) listed nobody, yet was tried:
            // one failed `list` with an empty MRN says so. Never what was searched for.
            shell.noteAccess(.listed, Self.noRecord, .failed)
            throw error
        }
        guard !result.matches.isEmpty else {
            shell.keepFindRows([])
            let words = text.split(whereSeparator: \.isWhitespace)
            if words.allSatisfy({ PatientSearch.isBirthDate($0) }) {
                shell.write("No patient matches. A birth date finds patients with a name beside it: 'find smith 1989'.")
            } else {
                shell.write("No patient matches. Try fewer letters, or fewer words.")
            }
            return .succeeded
        }
        if result.isClose { shell.write("No exact match; close matches:") }
        Self.show(result, in: shell)
        let more = result.total - result.matches.count
        let narrow =
            all
            ? "add letters or words to narrow the search" : "add letters or words, or list them all with 'find --all'"
        if result.totalIsCapped {
            shell.write("More than \(result.total) patients match; \(narrow).")
        } else if more > 0 {
            shell.write("\(more) more match\(more == 1 ? "es" : ""); \(narrow).")
        }
        if result.matches.contains(where: \.restricted) {
            shell.write("(R) restricted: 'open' asks for a reason, which is recorded.")
        }
        return .succeeded
    }
}
