import WardPluginAPI

/// Records every event that matters as one hash-chained JSON line: sign-on and its failures,
/// locks with their cause, unlocks, each command line by its name, what each command did to
/// each record (`access`, from the shell's `RecordAccess` events: the MRN, the action, the
/// outcome), denials, break-the-glass, suspend and resume, signals, sign-off.
///
/// A plugin rather than session code because sites choose where the log goes, how hard it is
/// synced and whether it is keyed; WardCore holds no policy. It sees a line before the shell
/// runs it, so a command that crashes Ward is still on record; it never parses the line's
/// arguments: the shell, which knows what it did, says so after it did it.
///
/// Fails closed, as sudo does with its I/O log: when the record for a line (or for anything that
/// grants access: a sign-on, an unlock, a resume) cannot be written, the line is denied with the
/// reason and the session locks with `.failure`. Other events it could not record are reported
/// above the prompt.
///
/// - Important: Never a key press, never a password, never note text: a line is reduced to a
///   `LineSummary` (its command's name) before it is written, and an access names the MRN, the
///   section read or the break-glass reason, never a note or another patient field.
public final class AuditLog: Plugin {
    /// The name a site file uses.
    public static let name = "audit-log"
    public static let summary = "Appends a hash-chained JSON Lines record of every command and session change."

    /// The site file's keys: `path`, `fsync`, `fsync-interval`, `key-file`.
    public static let fsyncChoices = AuditWriter.SyncPolicy.allCases.map(\.rawValue)

    /// The log file; its head file sits beside it (`FILE.head`).
    public let path: String
    public let chain: AuditChain
    public let policy: AuditWriter.SyncPolicy
    /// How often `fsync = "interval"` syncs.
    public let syncInterval: Duration
    /// Open from `added(context:)` on; nil before, or while the log cannot be opened.
    public private(set) var writer: AuditWriter?
    private let clock: @Sendable () -> Int64
    /// The source of the last line: where the session's other events came from.
    private var lastSource: Line.Source?
    /// The program `ward exec` runs has its typed lines recorded (`[exec] record-input`).
    private var recordsProgramInput = false

    /// A plugin that will write to `path`; nothing is opened until `added(context:)`.
    ///
    /// - Parameter clock: Wall time in milliseconds since the epoch; real time unless a test says otherwise.
    public init(
        path: String,
        chain: AuditChain = AuditChain(),
        policy: AuditWriter.SyncPolicy = .always,
        syncInterval: Duration = .seconds(1),
        clock: @escaping @Sendable () -> Int64 = UTCTimestamp.nowMilliseconds
    ) {
        self.path = path
        self.chain = chain
        self.policy = policy
        self.syncInterval = syncInterval
        self.clock = clock
    }

    /// Builds the plugin from its `[[plugin]]` table. Validates every key and reads the key
    /// file, but opens no log: `ward config check` builds plugins too, and must create nothing.
    ///
    /// - `path`: the log, absolute; default `HOME/audit.jsonl`.
    /// - `fsync`: `always` (default), `interval`, `never`.
    /// - `fsync-interval`: for `interval`, 10ms to 1m; default 1s.
    /// - `key-file`: the HMAC key, the caller's own and 0600; unkeyed when absent.
    ///
    /// - Throws: `ConfigError` for a bad value (naming FILE:LINE), `AuditError` when the key
    ///   file is refused.
    public convenience init(settings: PluginSettings, environment: PluginEnvironment) throws {
        let path = try settings.string("path") ?? WardHome(path: environment.home).auditLogPath
        guard path.hasPrefix("/") || !settings.has("path") else {
            throw ConfigError.wrongType(
                file: settings.file,
                line: settings.line(of: "path"),
                key: "path",
                expected: "an absolute path"
            )
        }
        let fsync = try settings.choice("fsync", from: Self.fsyncChoices) ?? AuditWriter.SyncPolicy.always.rawValue
        let interval =
            try settings.duration("fsync-interval", in: .milliseconds(10)...(.seconds(60))) ?? .seconds(1)
        let chain = try settings.string("key-file").map { path throws(AuditError) in
            AuditChain(key: try AuditKey.load(path: path))
        }
        self.init(
            path: path,
            chain: chain ?? AuditChain(),
            policy: AuditWriter.SyncPolicy(rawValue: fsync) ?? .always,
            syncInterval: interval
        )
    }

    /// Opens the log. A failure here is not fatal yet: the first record (the sign-on) tries
    /// again and fails closed, so the user is told why and the session locks.
    public func added(context: PluginContext) {
        do {
            writer = try AuditWriter(path: path, chain: chain, policy: policy, clock: clock)
        } catch {
            context.failedToStart("\(error)")
        }
    }

    public func intercept(_ event: Event, context: PluginContext) -> Disposition {
        switch event {
        case .line(let line) where line.source.isProgram:
            return recordProgramLine(line, context: context)
        case .line(let line):
            guard let summary = LineSummary(line.text) else { return .pass }
            lastSource = line.source
            return record(.command(summary), context: context, source: line.source, grantsAccess: true)
        case .session(let change):
            return intercept(change, context: context)
        case .lifecycle(.suspend):
            record(.suspend(), context: context, grantsAccess: false)
        case .lifecycle(.resume(let away)):
            return record(.resume(away: away), context: context, grantsAccess: true)
        case .lifecycle(.hangup):
            record(.signal("SIGHUP"), context: context, grantsAccess: false)
        case .lifecycle(.terminate):
            record(.signal("SIGTERM"), context: context, grantsAccess: false)
        case .timer:
            syncNow(context: context)
            return .consume
        case .key, .focus, .lifecycle:
            break
        }
        return .pass
    }

    private func intercept(_ change: SessionEvent, context: PluginContext) -> Disposition {
        switch change {
        case .signedOn:
            return record(.signOn(), context: context, grantsAccess: true)
        case .signOnFailed(let user):
            record(.signOnFailed(user: user), context: context, grantsAccess: false)
        case .locked(let reason):
            record(.lock(cause: reason.rawValue), context: context, grantsAccess: false)
        case .unlocked:
            return record(.unlock(), context: context, grantsAccess: true)
        case .signedOff(let reason):
            record(.signOff(how: reason.rawValue), context: context, grantsAccess: false)
        case .denied(let line, let message) where line.source.isProgram:
            // The typed text only where the site records input; else not even its first word.
            let entry = AuditEntry.denied(LineSummary(command: "?"), reason: message)
            record(entry, context: context, source: line.source, grantsAccess: false)
        case .programStarted(let start):
            recordsProgramInput = start.recordsInput
            return record(.execStart(start), context: context, grantsAccess: true)
        case .programExited(let exit):
            record(.execExit(exit), context: context, grantsAccess: false)
        case .denied(let line, let message):
            if let summary = LineSummary(line.text) {
                let entry = AuditEntry.denied(summary, reason: message)
                record(entry, context: context, source: line.source, grantsAccess: false)
            }
        case .abandoned(let line, let signal):
            if let summary = LineSummary(line.text) {
                let name = signal == .hangup ? "SIGHUP" : "SIGTERM"
                let entry = AuditEntry.abandoned(summary, signal: name)
                record(entry, context: context, source: line.source, grantsAccess: false)
            }
        case .accessed(let access):
            // The command has run: an access that showed or changed a record and cannot be
            // recorded locks the session; a refused or failed one is reported.
            return record(.access(access), context: context, grantsAccess: access.outcome == .ok)
        case .promptReady:
            break  // not an event that matters to an auditor
        }
        return .pass
    }

    public func removed(context: PluginContext) {
        writer?.close()
        writer = nil
    }

    /// Writes one record; on failure, fails closed when the event would let the user see data:
    /// `.deny` then, else `.pass`.
    @discardableResult
    fileprivate func record(
        _ entry: AuditEntry,
        context: PluginContext,
        source: Line.Source? = nil,
        grantsAccess: Bool
    ) -> Disposition {
        let session = context.session
        let fields = AuditRecord.SessionFields(id: session.id, user: session.user, role: session.role?.rawValue)
        do {
            let writer = try self.writer ?? AuditWriter(path: path, chain: chain, policy: policy, clock: clock)
            self.writer = writer
            try writer.append(entry, session: fields, source: (source ?? lastSource)?.description)
        } catch {
            context.logger.error("audit record not written", metadata: ["audit.kind": "\(entry.kind.rawValue)"])
            let message = "Not run: the audit log cannot be written (\(error)). The session is locked."
            if grantsAccess {
                context.lock(reason: .failure)
                return .deny(message)
            }
            context.notice("The audit log cannot be written (\(error)).")
            return .pass
        }
        if policy == .interval, context.deadline == nil { context.schedule(after: syncInterval) }
        return .pass
    }

    private func syncNow(context: PluginContext) {
        do {
            try writer?.sync()
        } catch {
            context.logger.error("audit log not synced")
            context.notice("The audit log cannot be synced (\(error)). The session is locked.")
            context.lock(reason: .failure)
        }
    }
}

@available(*, unavailable)
extension AuditLog: Sendable {}

// MARK: - ward exec

extension AuditLog {
    /// A line typed into a program: recorded whole where the site asks for it (and refused if
    /// it cannot be), else not at all: the program's lines are not Ward's commands, and any
    /// word of them may be patient data.
    fileprivate func recordProgramLine(_ line: Line, context: PluginContext) -> Disposition {
        lastSource = line.source
        guard recordsProgramInput, !line.text.isEmpty else { return .pass }
        return record(.input(line.text), context: context, source: line.source, grantsAccess: true)
    }
}

extension Line.Source {
    fileprivate var isProgram: Bool {
        if case .program = self { true } else { false }
    }
}
