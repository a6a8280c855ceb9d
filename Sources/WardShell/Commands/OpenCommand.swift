import WardCore
import WardRecords

/// `open MRN [--reason TEXT]`: loads one chart and makes it the prompt's context.
///
/// By MRN, never by name: names collide, and each audit record must name one patient. Real MRNs
/// are 36-character UUIDs, so the MRN may be given three ways (`OpenTarget`): whole; by its
/// start, when one patient's MRN starts so (an exact MRN wins; several: they are listed, numbered,
/// and nothing opens); or as a row of the last `find` (`open 2`, `open #2`). Whichever way, the
/// access is noted with the whole MRN the store holds, never with what was typed.
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
        operand: .word(
            name: "mrn",
            help:
                "The patient's MRN, as listed by 'find'; or its first characters, when no other MRN starts so; "
                + "or the row number of the last 'find' (1 to \(FindCommand.limit), or #N).",
            required: true
        ),
        options: [
            .init(
                "reason",
                value: "reason",
                help: "Why you open a restricted chart (break the glass); asked for when missing. Recorded."
            )
        ]
    )

    /// How many candidates an ambiguous prefix lists; the rest are counted.
    static let candidateLimit = 10

    let target: OpenTarget
    let reason: String?

    init(_ arguments: ParsedArguments) throws(UsageError) {
        let mrn = arguments.operands.first ?? ""
        reason = arguments.values["reason"]
        target = try OpenTarget(mrn)
        if case .mrn = target, mrn.allSatisfy(\.isLetter), !OpenTarget.looksHexadecimal(mrn) {
            throw Self.usageError("'open' takes an MRN, not a name. To search by name, use 'find'.")
        }
        if let reason, reason.allSatisfy(\.isWhitespace) {
            throw Self.usageError("The reason is empty. Say why you open this chart.")
        }
    }

    func run(in shell: Shell) throws -> CommandResult {
        let mrn: String
        switch target {
        case .mrn(let typed): mrn = typed
        case .row(let number): mrn = try shell.findRow(number)
        }
        if let chart = shell.loadedChart(mrn: mrn) {
            shell.select(chart)
            shell.noteAccess(.opened, chart.mrn, .ok)
            shell.write("\(chart.mrn) is already open; it is the current chart again.")
            return .succeeded
        }
        // Until the store has answered, the record is named as typed: it may not exist.
        let store: any RecordStore
        var found: PatientMatch?
        var candidates = SearchResult.none
        do {
            store = try shell.records()
            found = try store.lookUp(mrn: mrn)
            if found == nil, case .mrn = target {
                candidates = try store.patients(mrnStartingWith: mrn, limit: Self.candidateLimit)
                if candidates.total == 1 { found = candidates.matches.first }
            }
        } catch {
            shell.noteAccess(.opened, mrn, .failed)
            throw error
        }
        if found == nil, candidates.matches.count > 1 { return try ambiguous(mrn, candidates, shell) }
        guard let match = found else {
            shell.noteAccess(.opened, mrn, .failed)
            throw ShellError("no patient has the MRN '\(mrn)'. Use 'find' to look it up.")
        }
        if match.mrn != mrn, let chart = shell.loadedChart(mrn: match.mrn) {
            shell.select(chart)
            shell.noteAccess(.opened, chart.mrn, .ok)
            shell.write("\(chart.mrn) is already open; it is the current chart again.")
            return .succeeded
        }
        guard match.restricted else { return try Self.open(match.mrn, store, shell) }
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

    /// Several MRNs start with what was typed: they are listed as `find` lists (and each is
    /// `listed`), numbered so that `open N` picks one, and nothing opens.
    private func ambiguous(_ prefix: String, _ candidates: SearchResult, _ shell: Shell) throws -> CommandResult {
        FindCommand.show(candidates, in: shell)
        let more = candidates.total - candidates.matches.count
        if candidates.totalIsCapped {
            shell.write("And more than \(candidates.total - candidates.matches.count) more.")
        } else if more > 0 {
            shell.write("And \(more) more.")
        }
        throw ShellError(
            "several MRNs start with '\(prefix)'; nothing was opened. Type more of the MRN, or 'open N' for row N above."
        )
    }

    private func breakGlass(
        _ mrn: String,
        reason: String,
        _ store: any RecordStore,
        _ shell: Shell
    ) throws -> CommandResult {
        shell.noteBreakGlass(BreakGlass(mrn: mrn, user: shell.user ?? "", reason: reason, time: shell.now()))
        return try Self.open(mrn, store, shell)
    }

    /// What became of one chart reopened after an unlock.
    enum Reopening: Equatable {
        case opened
        /// Restricted: not opened, and no access noted (nobody asked to open it now).
        case restricted
        /// No patient has the MRN any more: a failed open is noted.
        case gone
        /// The store failed, with this message: a failed open is noted.
        case failed(String)
    }

    /// Opens `mrn` again after an unlock (`Shell.resume(from:)`) as `open MRN` would, with its
    /// `opened` access; never a restricted chart, which opens only with a reason. Silently: the
    /// shell sums up what came back in one line of MRNs, and a batch writes that line on standard
    /// error, where a patient's name does not belong.
    static func reopen(_ mrn: String, in shell: Shell) -> Reopening {
        let store: any RecordStore
        let found: PatientMatch?
        do {
            store = try shell.records()
            found = try store.lookUp(mrn: mrn)
        } catch {
            shell.noteAccess(.opened, mrn, detail: RecordAccess.resumed, .failed)
            return .failed(message(of: error))
        }
        guard let match = found else {
            shell.noteAccess(.opened, mrn, detail: RecordAccess.resumed, .failed)
            return .gone
        }
        guard !match.restricted else { return .restricted }
        do {
            // Notes its own access, ok or failed, marked as a resume.
            _ = try open(match.mrn, store, shell, announcing: false)
            return .opened
        } catch {
            return .failed(message(of: error))
        }
    }

    /// What the shell would report for `error`.
    private static func message(of error: any Error) -> String {
        (error as? ShellError)?.message ?? (error as? StoreError)?.description ?? "\(error)"
    }

    private static func open(
        _ mrn: String,
        _ store: any RecordStore,
        _ shell: Shell,
        announcing: Bool = true
    ) throws -> CommandResult {
        // Announced: the user typed `open`; not: the shell reopens it after an unlock.
        let detail = announcing ? nil : RecordAccess.resumed
        let chart = try shell.accessing(.opened, mrn, detail: detail) {
            try store.chart(mrn: mrn, contents: shell.chartContents)
        }
        shell.add(chart)
        guard announcing else { return .succeeded }
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
