import FoundationEssentials
import WardCore
import WardRecords

/// The records shell: turns a line into a command and runs it, and holds what the user opened.
///
/// Output goes through `output`: text on standard output through stdio, whose buffer the lock
/// zeroes, or a batch's JSON. Nothing reaches it before the accesses the command noted so far
/// have passed the session's output barrier (`placeOutputBarrier`): a record is on the audit
/// log (on disk, with `fsync = "always"`) before any of it is shown, and when the audit log
/// cannot write the access, the rest of the command's output is withheld and the command fails
/// with the audit log's message.
///
/// The store is opened at the first sign-on (a home without records still starts a shell, whose
/// commands say how to make some), closed by `wipe()` on lock, and reopened by `signedOn` after
/// the user signs on again.
public final class Shell: CommandRunner {
    /// Every command, in the order `help` lists them.
    public static let commands: [any ShellCommand.Type] = [
        HelpCommand.self,
        FindCommand.self,
        OpenCommand.self,
        ShowCommand.self,
        NoteCommand.self,
        CorrectCommand.self,
        CloseCommand.self,
        ChartsCommand.self,
        AuditCommand.self,
        WhoamiCommand.self,
        FormatCommand.self,
        LockCommand.self,
        LogoutCommand.self,
    ]

    /// Roles that see a chart's clinical sections and may write notes.
    public static let clinicalRoles: Set<Role> = [.clinician]
    /// Every role Ward knows.
    public static let everyRole: Set<Role> = Set(Role.allCases)

    /// Who is signed on; nil while nobody is.
    public private(set) var user: String?
    /// Their role (`clinician`, `clerk`, `auditor`).
    public private(set) var role: Role?

    /// The charts loaded in this session, in the order they were opened.
    public private(set) var charts: [LoadedChart] = []
    /// The same charts by MRN, folded as `sameMRN` compares (`foldedMRN`): `open` looks for a
    /// loaded chart before it loads one, and walking a batch's thousand charts for it was a
    /// large part of an `open` (Benchmarks/README.md, "Why the hot paths look as they do").
    private var chartsByMRN: [String: LoadedChart] = [:]
    /// The MRN of the chart `show`, `note` and the prompt refer to.
    public private(set) var currentMRN: String?
    /// The MRNs of the rows the last `find` showed, in its order: what `open N` picks from and
    /// Tab completes. Patient identifiers, so the lock wipes them; empty before any `find`.
    public private(set) var lastFindRows: [String] = []
    /// The names of those rows' patients by folded MRN, shown beside an MRN when Tab lists it.
    private var lastFindNames: [String: String] = [:]
    /// The last reason given to open a restricted chart, for the audit trail; nil after a wipe.
    public private(set) var lastBreakGlass: BreakGlass?
    private var pendingEvents: [SessionEvent] = []
    /// What the home holds, as the first sign-on of this process counted it; each unlock shows
    /// it again without counting. A count reads a whole index (at a million patients 30–40 ms on
    /// SQLite, 60–170 ms of the server's work on PostgreSQL, for every terminal's unlock), and
    /// the banner only says what kind of records these are. Not patient data: a lock keeps it.
    private var banner: Banner?
    private enum Banner { case counted(String?) }

    /// The session's check before output (`placeOutputBarrier`); nil shows at once (a shell
    /// without a session: tests, benchmarks).
    private var outputBarrier: OutputBarrier?
    /// Why this command's output is withheld (the barrier refused); nil while it may be shown.
    var withheld: String?
    /// What a command that asked a question does with the answer (nil: nobody can answer).
    private var awaitingAnswer: ((String?) throws -> CommandResult)?
    /// The answer awaited is text of several lines (`readText`): a lock that wipes it loses what
    /// was typed, which the user is told after signing on again.
    private var readingText = false
    /// A lock wiped text being typed; said once after the next sign-on.
    private var textLostToLock = false

    private var store: (any RecordStore)?
    private let openStore: RecordStoreOpener
    /// Where results go; a batch puts its own here.
    public var output: any ShellOutput
    /// The site's audit trail, for an auditor's `audit`; nil where there is none to read.
    public var auditTrail: (any AuditTrail)?
    let now: () -> Date

    /// A shell over the store that `openStore` returns when first needed; nil from it means the
    /// home has no records yet.
    public init(
        openingStore openStore: @escaping RecordStoreOpener = { nil },
        width: @escaping () -> Int = TerminalWidth.current,
        now: @escaping () -> Date = Date.init,
        output: @escaping (String) -> Void = { print($0) }
    ) {
        self.openStore = openStore
        self.now = now
        self.output = TextOutput(width: width, print: output)
    }

    /// A shell over an open store (tests, benchmarks).
    public convenience init(
        store: any RecordStore,
        width: @escaping () -> Int = TerminalWidth.current,
        now: @escaping () -> Date = Date.init,
        output: @escaping (String) -> Void = { print($0) }
    ) {
        self.init(openingStore: { store }, width: width, now: now, output: output)
    }

    /// A shell over the records `backend` holds (`StoreBackend.storeOpener(sharingConnectionOf:)`),
    /// on the connection of `users` where they are on the same server. A home with no records
    /// file gets none made: the file appears when `ward demo` or `ward import` writes it.
    ///
    /// - Throws: as `StoreBackend.existingStore()`, for a shared server, which is connected now.
    public convenience init(records backend: StoreBackend, users: (any UserDirectory)? = nil) throws {
        self.init(openingStore: try backend.storeOpener(sharingConnectionOf: users))
    }

    public func signedOn(user: String, role: Role) {
        withheld = nil
        self.user = user
        self.role = role
        if textLostToLock {
            textLostToLock = false
            write("The note you were typing when the session locked was not saved; type it again.")
        }
        do {
            if let store {
                try store.reopen()
            } else {
                store = try openStore()
            }
            if let store {
                if banner == nil {
                    banner = .counted(
                        HomeContents.banner(try store.patientsAtSignOn(), demo: try store.demoMarker())
                    )
                }
                if case .counted(let text?) = banner { write(text) }
            }
        } catch {
            report("\(error)")
        }
    }

    /// The lock's part: every loaded chart is emptied in place and forgotten, the break-glass
    /// reason goes, and the store's connection is closed with its page cache.
    public func wipe() {
        for chart in charts { chart.wipe() }
        charts = []
        chartsByMRN = [:]
        currentMRN = nil
        lastFindRows = []
        lastFindNames = [:]
        lastBreakGlass = nil
        textLostToLock = textLostToLock || (awaitingAnswer != nil && readingText)
        awaitingAnswer = nil
        readingText = false
        withheld = nil
        store?.wipe()
    }

    /// `ward> `, or `ward [O'Brien 475d72ca…]> ` naming the current chart by two identifiers, the
    /// family name and the MRN, each shortened so that the prompt fits in 40 columns.
    public var prompt: String {
        guard let currentMRN, let chart = loadedChart(mrn: currentMRN) else { return "ward> " }
        return "ward [\(PatientLabel.short(chart.patient))]> "
    }

    /// Reads the command's name, then the rest of the line against the command's syntax, and
    /// runs it: each step one pass over the line, so a line of a mebibyte costs milliseconds.
    /// Longer lines never get here: the session refuses them first (`SessionDriver.submit`).
    public func run(_ line: Line) -> CommandResult {
        withheld = nil
        return finished(running(line))
    }

    private func running(_ line: Line) -> CommandResult {
        awaitingAnswer = nil
        readingText = false
        let text = line.text.drop(while: CommandSyntax.isBlank)
        let nameEnd = text.firstIndex(where: CommandSyntax.isBlank) ?? text.endIndex
        let name = String(text[..<nameEnd])
        let rest = text[nameEnd...]
        guard !name.isEmpty else { return .succeeded }
        guard let type = Self.command(named: name) else {
            // The typed word is quoted as typed; `report` sanitizes it. The suggestion is a name.
            let names = Self.commands.flatMap { [$0.syntax.name] + $0.syntax.aliases }
            let guess = Suggestion.nearest(name, in: names).map { " Did you mean '\($0)'?" } ?? ""
            report("unknown command '\(name)'.\(guess) Type 'help' for the list.")
            return .failed
        }
        let parsed = Result { try type.syntax.parse(line: rest) }
        if type.choosesCurrentChart, (try? parsed.get()) != .help { clearCurrentChart() }
        if let roles = type.allowedRoles, let refusal = refusal(action: name, roles: roles) {
            report(refusal)
            noteRefusedAccess(type.currentChartAccess, detail: nil)
            if let event = type.refusalEvent(rest) { pendingEvents.append(event) }
            return .failed
        }
        var command: any ShellCommand
        do {
            switch try parsed.get() {
            case .help:
                write(type.syntax.help)
                return .succeeded
            case .arguments(let arguments):
                command = try type.init(arguments)
            }
        } catch let error as UsageError {
            report(error.description)
            return .failed
        } catch {
            report("\(error)")
            return .failed
        }
        if let restriction = command.restriction,
            let refusal = refusal(action: restriction.action, roles: restriction.allowedRoles)
        {
            report(refusal)
            noteRefusedAccess(type.currentChartAccess, detail: command.accessDetail)
            return .failed
        }
        return reportingFailures { try command.run(in: self) }
    }

    public func answer(_ text: String?) -> CommandResult {
        guard let go = awaitingAnswer else {
            // A lock wiped what was being typed (a note's lines) before its end came.
            report("the session locked before this text was finished; nothing of it was saved. Type it again.")
            return finished(.failed)
        }
        awaitingAnswer = nil
        readingText = false
        withheld = nil
        return finished(reportingFailures { try go(text) })
    }

    public func placeOutputBarrier(_ barrier: @escaping OutputBarrier) {
        outputBarrier = barrier
    }

    /// Whether text may be shown now: the accesses noted so far pass the output barrier first,
    /// as one group. After a refusal nothing more of the command is shown.
    private func mayShow() -> Bool {
        guard withheld == nil else { return false }
        guard !pendingEvents.isEmpty, let outputBarrier else { return true }
        withheld = outputBarrier()
        return withheld == nil
    }

    /// A command's end: what it noted after its last output passes the barrier too, so the
    /// command fails if the audit log cannot write it; a refusal, now or at an output, is the
    /// command's failure, reported with the audit log's message.
    private func finished(_ result: CommandResult) -> CommandResult {
        if withheld == nil, !pendingEvents.isEmpty, let outputBarrier { withheld = outputBarrier() }
        guard let refusal = withheld else { return result }
        withheld = nil
        output.failure(refusal)
        return .failed
    }

    /// Asks `question` in place of the prompt; `then` gets the answer, or nil when nobody can
    /// answer (a batch has no one to ask).
    func ask(_ question: String, then: @escaping (String?) throws -> CommandResult) -> CommandResult {
        awaitingAnswer = then
        readingText = false
        return .ask(question)
    }

    /// Reads text of several lines in place of the prompt (`CommandResult.readsText`): each line
    /// goes to `then`, which returns `readsText` again for the next, until the line holding only
    /// `.`; nil when the input ended first.
    func readText(_ prompt: String, then: @escaping (String?) throws -> CommandResult) -> CommandResult {
        awaitingAnswer = then
        readingText = true
        return .readsText(prompt)
    }

    /// Whether a person reads this shell's messages (a terminal), rather than a script.
    var isInteractive: Bool { output is TextOutput }

    /// Runs a command's body; a failure it throws is reported, and the command has failed.
    private func reportingFailures(_ body: () throws -> CommandResult) -> CommandResult {
        do {
            return try body()
        } catch let error as ShellError {
            report(error.message)
        } catch let error as NoCurrentChart {
            report(error.message)
            return .missingContext
        } catch let error as StoreError {
            report(error.description)
        } catch {
            report("\(error)")
        }
        return .failed
    }

    /// Why the signed-on user may not do `action`, or nil when they may.
    private func refusal(action: String, roles: Set<Role>) -> String? {
        guard let role else { return "'\(action)' needs a signed-on user." }
        return roles.contains(role) ? nil : "'\(action)' is not allowed for the \(role) role."
    }

    /// The command called `name`, or one of its aliases.
    public static func command(named name: String) -> (any ShellCommand.Type)? {
        commandsByName[name]
    }

    /// Every name and alias, built once.
    private static let commandsByName: [String: any ShellCommand.Type] = Dictionary(
        commands.flatMap { type in ([type.syntax.name] + type.syntax.aliases).map { ($0, type) } },
        uniquingKeysWith: { first, _ in first }
    )

    public func completions(for word: String, before: String) -> [String] {
        // Blank-separated, as the command's name is read: free text (`find o'br`) has no quotes to close.
        let previous = before.split(whereSeparator: CommandSyntax.isBlank).map(String.init)
        let names = Self.commands.map { $0.syntax.name }
        let candidates: [String]
        switch previous.first {
        case nil: candidates = names
        case "help": candidates = previous.count == 1 ? names : []
        case "show": candidates = previous.count == 1 ? ChartSection.allCases.map(\.rawValue) : []
        case "open": candidates = previous.count == 1 ? Array(Set(charts.map(\.mrn) + lastFindRows)) : []
        case "close": candidates = previous.count == 1 ? charts.map(\.mrn) : []
        default: candidates = []
        }
        // readline lists candidates raw; one with a control character cannot be typed anyway.
        return candidates.filter { $0.hasPrefix(word) && !Sanitizer.needsEscaping($0) }.sorted()
    }

    /// A line for the reader; `.line` when it quotes a record field and must stay one line.
    public func write(_ text: String, _ mode: Sanitizer.Mode = .text) {
        guard mayShow() else { return }
        output.message(text, mode)
    }

    /// Why the command failed.
    public func report(_ message: String) {
        guard mayShow() else { return }
        output.failure(message)
    }

    // MARK: Records

    /// The store, opened now if the records appeared since sign-on; or a message saying how to
    /// make records.
    func records() throws -> any RecordStore {
        if let store { return store }
        if let opened = try openStore() {
            store = opened
            return opened
        }
        throw ShellError(
            "there are no records in this Ward home yet. Make synthetic ones with 'ward demo', or bring FHIR bundles in with 'ward import PATH'."
        )
    }

    /// The chart the prompt names, or `NoCurrentChart`: never another open chart in its place.
    func currentChart() throws -> LoadedChart {
        guard let currentMRN, let chart = loadedChart(mrn: currentMRN) else {
            throw NoCurrentChart(openCharts: charts.count)
        }
        return chart
    }

    /// Leaves no chart current: an `open` starts so, and only the chart it opens becomes current.
    /// Whatever makes it fail (no such MRN, several, a refusal, a cancelled reason, a store's
    /// error) then leaves nothing for the next command to act on by mistake.
    func clearCurrentChart() {
        currentMRN = nil
    }

    /// A loaded chart by MRN, ignoring case as the store does (SQLite's NOCASE folds ASCII
    /// letters only).
    func loadedChart(mrn: String) -> LoadedChart? {
        chartsByMRN[Self.foldedMRN(mrn)]
    }

    /// `mrn` with its ASCII letters in lower case: two MRNs are `sameMRN` exactly when these are
    /// equal. Byte by byte: Foundation's case folding was most of the cost of `open` in a batch
    /// that keeps a thousand charts.
    static func foldedMRN(_ mrn: String) -> String {
        String(
            decoding: mrn.utf8.map { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) ? $0 | 0x20 : $0 },
            as: UTF8.self
        )
    }

    static func sameMRN(_ a: String, _ b: String) -> Bool {
        a.utf8.count == b.utf8.count
            && zip(a.utf8, b.utf8).allSatisfy { x, y in
                x == y || (x | 0x20 == y | 0x20 && (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(x | 0x20))
            }
    }

    /// How much of a chart the signed-on role may load.
    var chartContents: ChartContents {
        role.map(Self.clinicalRoles.contains) == true ? .full : .demographics
    }

    /// Keeps a chart just loaded and makes it the current one.
    func add(_ chart: LoadedChart) {
        charts.append(chart)
        chartsByMRN[Self.foldedMRN(chart.mrn)] = chart
        currentMRN = chart.mrn
    }

    /// Keeps the MRNs of the rows a `find` just showed, in order, for `open N` and Tab, and
    /// their patients' names for Tab's list.
    func keepFindRows(_ matches: [PatientMatch]) {
        lastFindRows = matches.map(\.mrn)
        lastFindNames = Dictionary(
            matches.map { (Self.foldedMRN($0.mrn), PatientLabel.name(given: $0.given, family: $0.family)) },
            uniquingKeysWith: { first, _ in first }
        )
    }

    /// The patient an MRN that Tab lists stands for: an open chart's, or a row of the last `find`.
    public func completionLabel(for candidate: String) -> String? {
        if let chart = loadedChart(mrn: candidate) { return PatientLabel.name(chart.patient) }
        return lastFindNames[Self.foldedMRN(candidate)]
    }

    /// The MRN of row `number` (from 1) of the last `find`, or a message saying why there is none.
    func findRow(_ number: Int) throws -> String {
        guard !lastFindRows.isEmpty else {
            throw ShellError(
                "there is no row \(number) to open: no 'find' has listed patients since you signed on. "
                    + "Use 'find NAME' first, or give the MRN."
            )
        }
        guard lastFindRows.indices.contains(number - 1) else {
            let count = lastFindRows.count
            throw ShellError(
                "the last 'find' listed \(count) row\(count == 1 ? "" : "s"); there is no row \(number). "
                    + "Give a row from 1 to \(count), or the MRN."
            )
        }
        return lastFindRows[number - 1]
    }

    /// Makes a loaded chart the current one.
    func select(_ chart: LoadedChart) {
        currentMRN = chart.mrn
    }

    /// Keeps the reason a restricted chart was opened with, and tells the chain.
    func noteBreakGlass(_ record: BreakGlass) {
        lastBreakGlass = record
        noteAccess(.brokeGlass, record.mrn, detail: record.reason, .ok)
    }

    /// Tells the chain, after this command, what it did to one record: each command calls this
    /// once for each record it touched, with how it ended. `record` is the MRN as the store
    /// spells it (as typed only when no such record exists).
    func noteAccess(
        _ action: RecordAccess.Action,
        _ record: String,
        detail: String? = nil,
        _ outcome: RecordAccess.Outcome
    ) {
        pendingEvents.append(.accessed(RecordAccess(action, record: record, detail: detail, outcome: outcome)))
    }

    /// Tells the chain, before anything more of this command is shown, of what it did that is
    /// not a record's access (`audit`'s reading of the trail).
    func noteSessionEvent(_ event: SessionEvent) {
        pendingEvents.append(event)
    }

    /// Runs `body`, which does `action` to `record`, and notes the access: `ok` when it returns,
    /// `failed` when it throws (the error goes on to be reported).
    func accessing<T>(
        _ action: RecordAccess.Action,
        _ record: String,
        detail: String? = nil,
        _ body: () throws -> T
    ) throws -> T {
        do {
            let result = try body()
            noteAccess(action, record, detail: detail, .ok)
            return result
        } catch {
            noteAccess(action, record, detail: detail, .failed)
            throw error
        }
    }

    /// Runs `body`, which writes into `record`, only once the audit log holds the write's
    /// `started` record: the record passes the output barrier first, and when it is refused
    /// (the audit log cannot be written) `body` does not run and the command fails with the
    /// audit log's message. Then the write's `ok` or `failed` is noted as `accessing` does.
    ///
    /// The record comes first because a write cannot be taken back: a note stored while its
    /// record was refused would be a change nobody can account for. A crash between the two
    /// leaves the attempt recorded, never a change without its record.
    func writing<T>(_ record: String, _ body: () throws -> T) throws -> T {
        noteAccess(.wrote, record, .started)
        guard mayShow() else { throw ShellError("the audit log cannot record the write; nothing was written.") }
        return try accessing(.wrote, record, body)
    }

    /// A role refusal of a command that acts on the current chart is that access, denied. With
    /// no chart open there is no record to name, and the line's own record says enough.
    private func noteRefusedAccess(_ action: RecordAccess.Action?, detail: String?) {
        guard let action, let currentMRN else { return }
        noteAccess(action, currentMRN, detail: detail, .denied)
    }

    /// What the last command did to records, for the chain (the audit log), taken after each
    /// command and each answer.
    public func takeSessionEvents() -> [SessionEvent] {
        defer { pendingEvents.removeAll() }
        return pendingEvents
    }

    /// Wipes one chart and forgets it. When it was the current chart no chart is current after
    /// it: another open chart taking its place would let the next `note` land on a patient the
    /// user did not choose.
    func remove(_ chart: LoadedChart) {
        let wasCurrent = currentMRN.map { Self.sameMRN($0, chart.mrn) } ?? false
        charts.removeAll { $0 === chart }
        chartsByMRN[Self.foldedMRN(chart.mrn)] = nil
        chart.wipe()
        if wasCurrent { currentMRN = nil }
    }

    /// Loads an open chart again from the store, in its place among the open charts, and makes it
    /// current: what other sessions and hosts wrote since it was opened is shown.
    func replace(_ old: LoadedChart, with new: LoadedChart) {
        if let index = charts.firstIndex(where: { $0 === old }) { charts[index] = new } else { charts.append(new) }
        chartsByMRN[Self.foldedMRN(old.mrn)] = nil
        chartsByMRN[Self.foldedMRN(new.mrn)] = new
        old.wipe()
        currentMRN = new.mrn
    }

    /// Result rows.
    func write(_ table: TextTable) {
        guard mayShow() else { return }
        output.table(table)
    }
}

@available(*, unavailable)
extension Shell: Sendable {}
