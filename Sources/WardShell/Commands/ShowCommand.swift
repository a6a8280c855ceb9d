import FoundationEssentials
import WardCore
import WardRecords

/// `show [SECTION] [WORD...] [--since DAY] [--until DAY] [--all] [--expanded]`: one section of
/// the current chart, as a table that fits the terminal, or one field a line (`--expanded`).
///
/// Everyone may see `summary` (demographics); the clinical sections (every other `ChartSection`)
/// are for clinicians only, refused by the shell for a clerk or an auditor before anything is
/// printed — their charts hold none of it anyway. Long sections show the newest rows first and
/// stop at `recent` rows unless `--all`: Ward pages nothing through another program, so a
/// screenful is the sensible default.
///
/// Words after the section keep the rows each one matches, by name, code or abbreviation
/// (`show labs hba1c`), or, for a section with statuses, by status (`show meds active`);
/// `--since` and `--until` keep the rows of those days (`RowFilter`).
///
/// The summary is the cover sheet: demographics with the age, then, for a clinician, how many
/// entries each section holds and the active problems, active medications and allergies, each
/// in a few lines.
///
/// Each table carries its rows typed too (`ChartJSON`), for JSON.
///
/// A section shown is the chart `read`, with the section, whether or not it has rows; a
/// refused section is that read `denied` (noted by `Shell.run`). The filter is not recorded: what
/// a clinician looked for can itself be clinical.
struct ShowCommand: ShellCommand {
    static let syntax = CommandSyntax(
        "show",
        abstract: "Show a section of the current chart (summary by default).",
        // Built with String's own `+=`: the generic `joined(separator:)` was not specialised, and
        // its first use searches every conformance in the binary, at start (every command's
        // syntax is read for the audit log's list of names).
        discussion: ChartSection.allCases.reduce(into: "SECTIONS:") { text, section in
            let name = section.rawValue
            text += "\n  " + name + String(repeating: " ", count: max(0, 15 - name.count)) + section.help
        },
        operand: .words(
            name: "section",
            help: "The section to show (listed above), or a prefix only it starts with; Tab completes it."
                + " Words after it keep the rows each word matches: in the name, ignoring case, spaces and"
                + " punctuation; the whole code ('show labs 4548-4'); or a common abbreviation (hba1c, a1c,"
                + " bmi, bp, ldl, hdl, egfr, hb, wbc...: man ward, FILTERS): 'show labs hba1c'. For meds,"
                + " problems and allergies, a status keeps the rows of that status: 'show meds active'."
                + " Ward records which section was shown, never these words."
        ),
        options: [
            .init("since", value: "day", help: "Keep rows from this day on (YYYY-MM-DD, as the table shows days)."),
            .init("until", value: "day", help: "Keep rows up to this day, included (YYYY-MM-DD)."),
            .init("all", help: "Show every row, not only the newest."),
            .init("expanded", help: "Show each row as its fields, one a line, nothing cut."),
        ]
    )

    static let currentChartAccess: RecordAccess.Action? = .read

    /// Rows shown without `--all`.
    static let recent = 20

    let section: ChartSection
    let all: Bool
    let expanded: Bool
    let filter: RowFilter

    init(_ arguments: ParsedArguments) throws(UsageError) {
        all = arguments.flags.contains("all")
        expanded = arguments.flags.contains("expanded")
        let section = try arguments.operands.first.map { word throws(UsageError) in try Self.section(word) }
        filter = try RowFilter(
            words: Array(arguments.operands.dropFirst()),
            since: arguments.values["since"],
            until: arguments.values["until"],
            statuses: section?.statuses ?? [:],
            syntax: Self.syntax
        )
        guard let section else {
            guard filter.isEmpty else {
                throw UsageError(.invalid("Filters need a section: 'show labs a1c'"), syntax: Self.syntax)
            }
            self.section = .summary
            return
        }
        self.section = section
        guard section != .summary || filter.isEmpty else {
            throw UsageError(
                .invalid("The summary has no rows to filter; name a section: 'show labs a1c'"),
                syntax: Self.syntax
            )
        }
    }

    /// The section a typed word names, or why it names none.
    private static func section(_ word: String) throws(UsageError) -> ChartSection {
        switch ChartSection.lookUp(word) {
        case .found(let section):
            return section
        case .ambiguous(let candidates):
            let names = candidates.map { "'\($0.rawValue)'" }.joined(separator: ", ")
            throw UsageError(.invalid("'\(word)' could be any of \(names); type more letters"), syntax: Self.syntax)
        case .unknown(nearest: let nearest?):
            throw UsageError(.invalid("No section '\(word)'. Did you mean '\(nearest.rawValue)'?"), syntax: Self.syntax)
        case .unknown(nearest: nil):
            throw UsageError(
                .invalidValue(word, for: "<section>", allowed: ChartSection.allCases.map(\.rawValue)),
                syntax: Self.syntax
            )
        }
    }

    var accessDetail: String? { section.rawValue }

    var restriction: CommandRestriction? {
        section == .summary
            ? nil : CommandRestriction(action: "show \(section.rawValue)", allowedRoles: section.allowedRoles)
    }

    func run(in shell: Shell) throws -> CommandResult {
        let chart = try shell.currentChart()
        // Noted before a row is written: the output barrier puts the access on record first.
        shell.noteAccess(.read, chart.mrn, detail: section.rawValue, .ok)
        switch section {
        case .summary: summary(chart, shell)
        case .allergies:
            table(
                ["SUBSTANCE", "CATEGORY", "CRITICALITY", "STATUS", "RECORDED"],
                chart.allergies.reversed(),
                name: \.substance,
                code: \.code,
                date: \.recorded,
                status: \.status,
                shell,
                values: ChartJSON.row
            ) { [$0.substance, $0.category, $0.criticality, $0.status, ChartFormat.day($0.recorded)] }
        case .meds:
            table(
                ["MEDICATION", "DOSAGE", "STATUS", "AUTHORED"],
                chart.medications.reversed(),
                name: \.display,
                code: \.code,
                date: \.authored,
                status: \.status,
                shell,
                values: ChartJSON.row
            ) { [$0.display, $0.dosage, $0.status, ChartFormat.day($0.authored)] }
        case .problems:
            table(
                ["PROBLEM", "STATUS", "ONSET", "ABATED"],
                chart.problems.reversed(),
                name: \.display,
                code: \.code,
                date: \.onset,
                status: \.status,
                shell,
                values: ChartJSON.row
            ) { [$0.display, $0.status, ChartFormat.day($0.onset), ChartFormat.day($0.abated)] }
        case .vitals: observations(chart.vitals, shell)
        case .labs: observations(chart.labs, shell)
        case .social: observations(chart.socialHistory, shell)
        case .surveys: observations(chart.surveys, shell)
        case .immunizations:
            table(
                ["DATE", "VACCINE", "STATUS"],
                chart.immunizations.reversed(),
                name: \.vaccine,
                code: \.code,
                date: \.date,
                shell,
                values: ChartJSON.row
            ) { [ChartFormat.day($0.date), $0.vaccine, $0.status] }
        case .procedures:
            table(
                ["DATE", "PROCEDURE", "REASON", "STATUS"],
                chart.procedures.reversed(),
                name: \.display,
                code: \.code,
                date: \.performed,
                shell,
                values: ChartJSON.row
            ) { [ChartFormat.day($0.performed), $0.display, $0.reason, $0.status] }
        case .careplans:
            table(
                ["PLAN", "ACTIVITIES", "START", "END", "STATUS"],
                chart.carePlans.reversed(),
                name: \.category,
                code: \.noCode,
                date: \.start,
                shell,
                values: ChartJSON.row
            ) {
                [
                    $0.category, ChartFormat.list($0.activities), ChartFormat.day($0.start),
                    ChartFormat.day($0.end), $0.status,
                ]
            }
        case .reports:
            table(
                ["DATE", "REPORT", "STATUS", "RESULTS"],
                chart.reports.reversed(),
                name: \.name,
                code: \.code,
                date: \.date,
                shell,
                values: ChartJSON.row
            ) { [ChartFormat.day($0.date), $0.name, $0.status, ChartFormat.findings($0)] }
        case .encounters:
            table(
                ["START", "CLASS", "VISIT", "REASON"],
                chart.encounters.reversed(),
                name: \.display,
                code: \.noCode,
                date: { $0.start },
                shell,
                values: ChartJSON.row,
                cells: { [ChartFormat.time($0.start), $0.kind, $0.display, $0.reason] }
            )
        case .notes: notes(chart.notes, shell)
        }
        return .succeeded
    }

    private func summary(_ chart: LoadedChart, _ shell: Shell) {
        let p = chart.patient
        var rows = [
            ["MRN", p.mrn + (p.restricted ? " (restricted)" : "")],
            ["Name", PatientLabel.name(p)],
            ["Born", PatientLabel.born(p.birthDate)],
            ["Age", ChartFormat.age(birthDate: p.birthDate, on: shell.now())],
            ["Sex", p.sex.rawValue], ["Phone", p.phone], ["Address", p.address],
        ]
        // JSON: the same field and value, a count as a number.
        var values = rows.map { ["field": TableValue.text($0[0]), "value": TableValue.text($0[1])] }
        if shell.chartContents == .full {
            for section in ChartSection.allCases.dropFirst() {
                let count = Self.count(section, chart)
                rows.append([section.summaryLabel, "\(count)"])
                values.append(["field": .text(section.summaryLabel), "value": .number(Double(count))])
            }
        }
        shell.write(TextTable(headers: ["FIELD", "VALUE"], rows: rows, layout: .fields, values: values))
        if shell.chartContents == .full { coverSheet(chart, shell) }
    }

    /// The cover sheet under the summary: what a clinician must know before anything else,
    /// each list in at most `coverLines` lines, the last saying how many more there are.
    private func coverSheet(_ chart: LoadedChart, _ shell: Shell) {
        let problems = chart.problems.reversed().filter { ChartSection.problems.isActive($0.status) }.map(\.display)
        let medications = chart.medications.reversed().filter { ChartSection.meds.isActive($0.status) }
            .map { $0.dosage.isEmpty ? $0.display : "\($0.display), \($0.dosage)" }
        let allergies = chart.allergies.reversed().filter { ChartSection.allergies.isActive($0.status) }
            .map { $0.criticality.isEmpty ? $0.substance : "\($0.substance) (\($0.criticality))" }
        var rows: [[String]] = []
        for (label, items, more) in [
            ("Active problems", problems, "show problems active"),
            ("Active medications", medications, "show meds active"),
            ("Allergies", allergies, "show allergies"),
        ] {
            let lines =
                items.isEmpty
                ? ["none recorded"]
                : items.count <= Self.coverLines
                    ? items
                    : items.prefix(Self.coverLines - 1) + ["and \(items.count - Self.coverLines + 1) more: '\(more)'"]
            for (index, line) in lines.enumerated() { rows.append([index == 0 ? label : "", line]) }
        }
        // JSON: each whole list, nothing left out.
        let values: [[String: TableValue]] = [
            ["field": .text("Active problems"), "value": .list(problems)],
            ["field": .text("Active medications"), "value": .list(medications)],
            ["field": .text("Allergies"), "value": .list(allergies)],
        ]
        shell.write(TextTable(headers: ["FIELD", "VALUE"], rows: rows, layout: .fields, values: values))
    }

    /// The most lines a list of the cover sheet takes.
    static let coverLines = 3

    /// How many rows `section` holds in `chart`, for the summary.
    static func count(_ section: ChartSection, _ chart: LoadedChart) -> Int {
        switch section {
        case .summary: 1
        case .allergies: chart.allergies.count
        case .meds: chart.medications.count
        case .problems: chart.problems.count
        case .vitals: chart.vitals.count
        case .labs: chart.labs.count
        case .social: chart.socialHistory.count
        case .surveys: chart.surveys.count
        case .immunizations: chart.immunizations.count
        case .procedures: chart.procedures.count
        case .careplans: chart.carePlans.count
        case .reports: chart.reports.count
        case .encounters: chart.encounters.count
        case .notes: chart.notes.count
        }
    }

    private func observations(_ list: [Observation], _ shell: Shell) {
        table(
            ["TIME", "MEASUREMENT", "VALUE", "UNIT"],
            list.reversed(),
            name: \.display,
            code: \.code,
            date: { $0.time },
            shell,
            values: ChartJSON.row,
            cells: { [ChartFormat.time($0.time), $0.display, ChartFormat.value($0), ChartFormat.unit($0.unit)] }
        )
    }

    /// Newest first, the filter's rows only, cut at `recent` unless `--all`, with a line saying
    /// what was left out.
    private func table<Item>(
        _ headers: [String],
        _ items: some Sequence<Item>,
        name: (Item) -> String,
        code: (Item) -> String,
        date: (Item) -> Date?,
        status: (Item) -> String = { _ in "" },
        _ shell: Shell,
        values: (Item) -> [String: TableValue],
        cells: (Item) -> [String]
    ) {
        let kept = items.filter {
            filter.keeps(name: name($0), code: code($0), date: date($0), status: status($0))
        }
        guard !kept.isEmpty else {
            shell.write(filter.isEmpty ? "No \(section.noun) in this chart." : "No \(section.noun) match.")
            return
        }
        let shown = all ? kept : Array(kept.prefix(Self.recent))
        shell.write(
            TextTable(
                headers: headers,
                rows: shown.map(cells),
                layout: expanded ? .expanded : .columns,
                values: shown.map(values)
            )
        )
        if shown.count < kept.count {
            shell.write(
                "\(kept.count - shown.count) older not shown; 'show \(section.rawValue) --all' lists every one."
            )
        }
    }

    /// Notes are read, not scanned: each in full, wrapped to the width, under its time and author.
    private func notes(_ notes: [Note], _ shell: Shell) {
        guard !notes.isEmpty else {
            shell.write("No notes in this chart.")
            return
        }
        let list = notes.reversed().filter { filter.keeps(name: $0.text, code: "", date: $0.time) }
        guard !list.isEmpty else {
            shell.write("No notes match.")
            return
        }
        let shown = all ? Array(list) : Array(list.prefix(Self.recent))
        let corrections = Dictionary(grouping: notes.filter { $0.corrects != nil }, by: { $0.corrects ?? 0 })
        shell.write(
            TextTable(
                headers: ["NOTE", "TIME", "AUTHOR", "TEXT"],
                rows: shown.map {
                    [Self.number(of: $0, corrections: corrections), ChartFormat.time($0.time), $0.author, $0.text]
                },
                layout: .paragraphs,
                values: shown.map(ChartJSON.row)
            )
        )
        if shown.count < list.count {
            shell.write("\(list.count - shown.count) older not shown; 'show notes --all' lists every one.")
        }
    }

    /// A note's heading number, with what ties it to another: `14 corrects 12`, or
    /// `12 corrected by 14`, so a reader of either sees the other. Newest first, a correction
    /// comes just before the note it corrects when nothing came between them.
    private static func number(of note: Note, corrections: [Int64: [Note]]) -> String {
        guard let id = note.id else { return "" }
        var words = ["\(id)"]
        if let corrects = note.corrects { words.append("corrects \(corrects)") }
        if let later = corrections[id], !later.isEmpty {
            words.append("corrected by " + later.compactMap { $0.id.map(String.init) }.joined(separator: ", "))
        }
        return words.joined(separator: " ")
    }
}

/// Rows that have a name but no code: a filter's words match their name only.
extension CarePlan {
    fileprivate var noCode: String { "" }
}

extension Encounter {
    fileprivate var noCode: String { "" }
}
