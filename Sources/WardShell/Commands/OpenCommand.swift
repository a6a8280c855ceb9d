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
///
/// An `open` chooses the current chart, so the shell leaves none current as the line is read
/// (`choosesCurrentChart`): an `open` that does not open the chart asked for (unknown, several,
/// refused, cancelled, failed) leaves no chart for the next `note` to land on. An MRN is any
/// identifier an import accepted, so whether the text is an MRN is decided by looking it up,
/// never by its shape. `open` of a chart already open loads it again, so that what others wrote
/// since is on screen.
struct OpenCommand: ShellCommand {
    static let syntax = CommandSyntax(
        "open",
        abstract: "Open one patient's chart by medical record number.",
        operand: .word(
            name: "mrn",
            help:
                "The patient's MRN, as listed by 'find'; or its first characters, when no other MRN starts so; "
                + "or the row number of the last 'find' (N or #N).",
            required: true
        ),
        options: [
            .init(
                "reason",
                value: "reason",
                restOfLine: true,
                help: "Why you open a restricted chart (break the glass), the rest of the line as typed; "
                    + "asked for when missing. Recorded."
            )
        ]
    )

    /// How many candidates an ambiguous prefix lists; the rest are counted.
    static let candidateLimit = 10

    static let choosesCurrentChart = true

    let target: OpenTarget
    let reason: String?

    init(_ arguments: ParsedArguments) throws(UsageError) {
        let mrn = arguments.operands.first ?? ""
        reason = arguments.values["reason"]
        target = try OpenTarget(mrn)
        if let reason, reason.allSatisfy(\.isWhitespace) {
            throw Self.usageError("The reason is empty. Say why you open this chart.")
        }
    }

    func run(in shell: Shell) throws -> CommandResult {
        let mrn: String
        switch target {
        case .mrn(let typed): mrn = typed
        case .row(let number): mrn = try shell.findRow(number)
        case .rowOrMRN(let number, let typed): mrn = try Self.rowOrMRN(number, typed, shell)
        }
        // Until the store has answered, the record is named as typed: it may not exist.
        let store: any RecordStore
        var found: PatientMatch?
        var candidates = SearchResult.none
        do {
            store = try shell.records()
            found = try store.lookUp(mrn: mrn)
            if found == nil, target.isMRN {
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
            if mrn.allSatisfy(\.isLetter) {
                throw ShellError("no patient has the MRN '\(mrn)'. To search by name, use 'find \(mrn)'.")
            }
            throw ShellError("no patient has the MRN '\(mrn)'. Use 'find' to look it up.")
        }
        if let open = shell.loadedChart(mrn: match.mrn) { return try reload(open, store, shell) }
        guard match.restricted else { return try Self.open(match.mrn, store, shell) }
        if let reason { return try breakGlass(match.mrn, reason: reason, store, shell) }
        return shell.ask("\(match.mrn) is restricted. Why do you open it? (recorded; empty to cancel) ") {
            [unowned shell] answer in
            let reason = answer?.trimming(.whitespace) ?? ""
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

    /// A bare number is a row of the last `find` or an MRN made of digits. When it could be both,
    /// nothing opens: a guess between two patients is what this shell never makes.
    private static func rowOrMRN(_ number: Int, _ typed: String, _ shell: Shell) throws -> String {
        let row: String? = shell.lastFindRows.indices.contains(number - 1) ? shell.lastFindRows[number - 1] : nil
        if let row, Shell.sameMRN(row, typed) { return row }
        let isMRN: Bool
        do {
            isMRN = try shell.records().lookUp(mrn: typed) != nil
        } catch {
            shell.noteAccess(.opened, typed, .failed)
            throw error
        }
        switch (row, isMRN) {
        case (nil, false): return try shell.findRow(number)  // throws, saying which rows there are
        case (nil, true): return typed
        case (let row?, false): return row
        case (_?, true):
            throw ShellError(
                "'\(typed)' is both row \(number) of the last 'find' and a patient's MRN; nothing was opened. "
                    + "Type 'open #\(number)' for the row."
            )
        }
    }

    /// `open` of a chart already open: loaded again from the store in its place, so notes written
    /// meanwhile by other sessions and hosts are shown. A restricted chart was opened with a
    /// reason in this session already; reading it again asks for none.
    private func reload(_ open: LoadedChart, _ store: any RecordStore, _ shell: Shell) throws -> CommandResult {
        let chart = try shell.accessing(.opened, open.mrn) {
            try store.chart(mrn: open.mrn, contents: shell.chartContents)
        }
        shell.replace(open, with: chart)
        shell.write("\(PatientLabel.full(chart.patient)) was open; read again, it is the current chart.", .line)
        return .succeeded
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
        var line = "Opened \(patient.mrn): \(PatientLabel.name(patient))"
        line += ", born \(PatientLabel.born(patient.birthDate)), \(patient.sex.rawValue)."
        shell.write(line, .line)
        if shell.chartContents == .demographics {
            shell.write("Demographics only: the \(shell.role?.rawValue ?? "") role does not see clinical sections.")
        }
        return .succeeded
    }
}
