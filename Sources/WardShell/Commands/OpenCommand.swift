import WardCore
import WardRecords

/// `open MRN [--reason TEXT]`: loads one chart and makes it the prompt's context.
///
/// By MRN, never by name: names collide, and each audit record must name one patient.
/// A restricted chart (a VIP, a member of staff) opens only with a stated reason — breaking the
/// glass — given with `--reason` or asked for, and kept as `Shell.lastBreakGlass` for the audit
/// trail; the check runs on the `find` row, before anything clinical is read. Every role may open
/// a chart; clerks and auditors get the demographics only, and the clinical rows are never loaded
/// for them.
///
/// The chart is `opened` (`ok`; `failed` for no such MRN or an error; `denied` for a restricted
/// chart without a reason); a break-the-glass open is noted first, with its reason.
struct OpenCommand: ShellCommand {
    static let syntax = CommandSyntax(
        "open",
        abstract: "Open one patient's chart by medical record number.",
        operand: .word(name: "mrn", help: "The patient's MRN, as listed by 'find'.", required: true),
        options: [
            .init(
                "reason",
                value: "reason",
                help: "Why you open a restricted chart (break the glass); asked for when missing. Recorded."
            )
        ]
    )

    let mrn: String
    let reason: String?

    init(_ arguments: ParsedArguments) throws(UsageError) {
        mrn = arguments.operands.first ?? ""
        reason = arguments.values["reason"]
        if mrn.allSatisfy(\.isLetter) {
            throw Self.usageError("'open' takes an MRN, not a name. To search by name, use 'find'.")
        }
        if let reason, reason.allSatisfy(\.isWhitespace) {
            throw Self.usageError("The reason is empty. Say why you open this chart.")
        }
    }

    func run(in shell: Shell) throws -> CommandResult {
        if let chart = shell.loadedChart(mrn: mrn) {
            shell.select(chart)
            shell.write("\(chart.mrn) is already open; it is the current chart again.")
            shell.noteAccess(.opened, chart.mrn, .ok)
            return .succeeded
        }
        // Until the store has answered, the record is named as typed: it may not exist.
        let store: any RecordStore
        let found: PatientMatch?
        do {
            store = try shell.records()
            found = try store.lookUp(mrn: mrn)
        } catch {
            shell.noteAccess(.opened, mrn, .failed)
            throw error
        }
        guard let match = found else {
            shell.noteAccess(.opened, mrn, .failed)
            throw ShellError("no patient has the MRN '\(mrn)'. Use 'find' to look it up.")
        }
        guard match.restricted else { return try open(match.mrn, store, shell) }
        if let reason { return try breakGlass(match.mrn, reason: reason, store, shell) }
        return shell.ask("\(match.mrn) is restricted. Why do you open it? (recorded; empty to cancel) ") {
            [unowned shell] answer in
            let reason = answer?.trimmingCharacters(in: .whitespaces) ?? ""
            guard !reason.isEmpty else {
                shell.noteAccess(.opened, match.mrn, .denied)
                throw ShellError(
                    "\(match.mrn) was not opened: a restricted chart opens only with a reason, which is recorded. "
                        + "Give it on the line: open \(match.mrn) --reason \"…\""
                )
            }
            return try breakGlass(match.mrn, reason: reason, store, shell)
        }
    }

    private func breakGlass(
        _ mrn: String,
        reason: String,
        _ store: any RecordStore,
        _ shell: Shell
    ) throws -> CommandResult {
        shell.noteBreakGlass(BreakGlass(mrn: mrn, user: shell.user ?? "", reason: reason, time: shell.now()))
        return try open(mrn, store, shell)
    }

    private func open(_ mrn: String, _ store: any RecordStore, _ shell: Shell) throws -> CommandResult {
        let chart = try shell.accessing(.opened, mrn) { try store.chart(mrn: mrn, contents: shell.chartContents) }
        shell.add(chart)
        let patient = chart.patient
        var line = "Opened \(patient.mrn): \(ChartFormat.name(given: patient.given, family: patient.family))"
        line += ", born \(patient.birthDate.isEmpty ? "unknown" : patient.birthDate), \(patient.sex.rawValue)."
        shell.write(line, .line)
        if shell.chartContents == .demographics {
            shell.write("Demographics only: the \(shell.role?.rawValue ?? "") role does not see clinical sections.")
        }
        return .succeeded
    }
}
