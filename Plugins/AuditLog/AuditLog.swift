import Logging
import WardPluginAPI
import WardSupport

/// Records every event that matters as one hash-chained JSON line: sign-on (from where) and
/// its failures, locks with their cause, unlocks and refused unlocks, each command line by its
/// name, what each command did to each record (`access`, from the shell's `RecordAccess`
/// events: the MRN, the action, the outcome), denials, break-the-glass, suspend and resume,
/// signals, sign-off.
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
/// With `fsync = "always"`, a command costs one `fdatasync`: its line's record is written at
/// once but not synced on its own; the sync of the command's accesses, which the session makes
/// before the command shows any record (its output barrier), covers it, or, for a command that
/// noted no access, a sync when the prompt comes back (`.promptReady`). Every other record is
/// synced as it is written. So nothing of a record is shown before its access and the line are
/// on disk, and a line that showed no record is on disk before the next prompt.
///
/// With `forward = "syslog"`, each record, once in the file, also goes to the syslog daemon
/// (`SyslogForwarder`); a record that could not be sent is handled the same way, or only
/// reported when the site chose `on-forward-failure = "warn"`. The file always comes first.
///
/// When the site's records are on PostgreSQL, the executable sets a `sink`: each record, once in
/// the file, also goes to the site's database, for `ward audit show --all-hosts`. Never fail
/// closed on it: the file is the record, and the sink keeps or reports what it could not send.
///
/// - Important: Never a key press, never a password, never note text: a line is reduced to a
///   `LineSummary` (its command's name) before it is written, and an access names the MRN, the
///   section read or the break-glass reason, never a note or another patient field.
public final class AuditLog: Plugin {
    /// The name a site file uses.
    public static let name = "audit-log"
    public static let summary = "Appends a hash-chained JSON Lines record of every command and session change."

    /// The site file's keys: `path`, `fsync`, `fsync-interval`, `key-file`, `forward`,
    /// `syslog-socket`, `on-forward-failure`.
    public static let fsyncChoices = AuditWriter.SyncPolicy.allCases.map(\.rawValue)
    /// `forward`: nowhere but the file, or also the local syslog daemon.
    public static let forwardChoices = SyslogForwarder.Destination.allCases.map(\.rawValue)

    /// The log file; its head file sits beside it (`FILE.head`).
    public let path: String
    public let chain: AuditChain
    public let policy: AuditWriter.SyncPolicy
    /// How often `fsync = "interval"` syncs.
    public let syncInterval: Duration
    /// The shell's command names and aliases (`PluginEnvironment.commandNames`): a line's first
    /// word is recorded only when it is one of these, else as `?`.
    public let commandNames: Set<String>
    /// Open from `added(context:)` on; nil before, or while the log cannot be opened.
    public private(set) var writer: AuditWriter?
    /// Where each record goes after the file (`forward = "syslog"`); nil to keep it local.
    public let forwarder: SyslogForwarder?
    /// What a record that reached the file but not the forwarder does (`on-forward-failure`).
    public let onForwardFailure: SyslogForwarder.FailurePolicy
    /// Where each record also goes once in the file: the site's database, when the executable
    /// sets one (its records are on PostgreSQL). Never fails a record: see `AuditSink`.
    public var sink: (any AuditSink)?
    private let clock: @Sendable () -> Int64
    /// The source of the last line: where the session's other events came from.
    private var lastSource: Line.Source?
    /// The program `ward exec` runs has its typed lines recorded (`[exec] record-input`).
    private var recordsProgramInput = false

    /// A plugin that will write to `path`; nothing is opened until `added(context:)`.
    ///
    /// - Parameters:
    ///   - commandNames: The names a line may start with, as the shell lists them; empty records
    ///     every line's command as `?`.
    ///   - clock: Wall time in milliseconds since the epoch; real time unless a test says otherwise.
    public init(
        path: String,
        chain: AuditChain = AuditChain(),
        policy: AuditWriter.SyncPolicy = .always,
        syncInterval: Duration = .seconds(1),
        commandNames: Set<String> = [],
        forwarder: SyslogForwarder? = nil,
        onForwardFailure: SyslogForwarder.FailurePolicy = .lock,
        clock: @escaping @Sendable () -> Int64 = UTCTimestamp.nowMilliseconds
    ) {
        self.path = path
        self.chain = chain
        self.policy = policy
        self.syncInterval = syncInterval
        self.commandNames = commandNames
        self.forwarder = forwarder
        self.onForwardFailure = onForwardFailure
        self.clock = clock
    }

    /// Builds the plugin from its `[[plugin]]` table. Validates every key and reads the key
    /// file, but opens no log: `ward config check` builds plugins too, and must create nothing.
    ///
    /// - `path`: the log, absolute; default `HOME/audit.jsonl`.
    /// - `fsync`: `always` (default), `interval`, `never`.
    /// - `fsync-interval`: for `interval`, 10ms to 1m; default 1s.
    /// - `key-file`: the HMAC key, the caller's own and 0600; unkeyed when absent.
    /// - `forward`: `off` (default) or `syslog`: each record also goes to the syslog socket.
    /// - `syslog-socket`: that socket, absolute; default `/dev/log`. Only with `forward = "syslog"`.
    /// - `on-forward-failure`: `lock` (default) or `warn`. Only with `forward = "syslog"`.
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
        let forward =
            try settings.choice("forward", from: Self.forwardChoices)
            .flatMap(SyslogForwarder.Destination.init(rawValue:)) ?? .off
        let socket = try settings.string("syslog-socket")
        let onFailure = try settings.choice(
            "on-forward-failure",
            from: SyslogForwarder.FailurePolicy.allCases.map(\.rawValue)
        )
        if forward == .off {
            for key in ["syslog-socket", "on-forward-failure"] where settings.has(key) {
                throw ConfigError.conflict(
                    file: settings.file,
                    line: settings.line(of: key),
                    message: "'\(key)' is set but records are not forwarded; add 'forward = \"syslog\"' or remove it."
                )
            }
        }
        if let socket, !socket.hasPrefix("/") || socket.utf8.count > SyslogForwarder.maximumSocketPathBytes {
            throw ConfigError.wrongType(
                file: settings.file,
                line: settings.line(of: "syslog-socket"),
                key: "syslog-socket",
                expected: "an absolute path of at most \(SyslogForwarder.maximumSocketPathBytes) bytes"
            )
        }
        self.init(
            path: path,
            chain: chain ?? AuditChain(),
            policy: AuditWriter.SyncPolicy(rawValue: fsync) ?? .always,
            syncInterval: interval,
            commandNames: environment.commandNames,
            forwarder: forward == .syslog ? SyslogForwarder(socketPath: socket ?? SyslogForwarder.defaultSocket) : nil,
            onForwardFailure: onFailure.flatMap(SyslogForwarder.FailurePolicy.init(rawValue:)) ?? .lock
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
            guard let summary = LineSummary(line.text, commands: commandNames) else { return .pass }
            lastSource = line.source
            return record(
                [.command(summary)],
                context: context,
                source: line.source,
                grantsAccess: true,
                deferringSync: policy == .always
            )
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
            repairInterruptedRotation(context: context)
            return record(.signOn(source: context.session.signOnSource), context: context, grantsAccess: true)
        case .signOnFailed(let user, let reason):
            let entry = AuditEntry.signOnFailed(user: user, reason: reason, source: context.session.signOnSource)
            record(entry, context: context, grantsAccess: false)
        case .unlockFailed(_, let reason):
            record(.unlockFailed(reason: reason), context: context, grantsAccess: false)
        case .locked(let reason):
            let requester = reason == .request ? context.session.lockRequestedBy : nil
            record(.lock(cause: reason.rawValue, by: requester), context: context, grantsAccess: false)
        case .unlocked:
            return record(.unlock(), context: context, grantsAccess: true)
        case .signedOff(let reason):
            record(.signOff(how: reason.rawValue), context: context, grantsAccess: false)
        case .denied(let line, let message, let plugin) where line.source.isProgram:
            // The typed text only where the site records input; else not even its first word.
            let entry = AuditEntry.denied(LineSummary(command: "?"), reason: message, by: plugin)
            record(entry, context: context, source: line.source, grantsAccess: false)
        case .programStarted(let start):
            recordsProgramInput = start.recordsInput
            return record(.execStart(start), context: context, grantsAccess: true)
        case .programExited(let exit):
            record(.execExit(exit), context: context, grantsAccess: false)
        case .programExecDenied(let attempt):
            record(.execDenied(attempt), context: context, grantsAccess: false)
        case .auditRead(let reading):
            // A reading that cannot be recorded is not shown: the trail is what it would show.
            return record(.auditRead(reading), context: context, grantsAccess: reading.outcome == .ok)
        case .denied(let line, let message, let plugin):
            if let summary = LineSummary(line.text, commands: commandNames) {
                let entry = AuditEntry.denied(summary, reason: message, by: plugin)
                record(entry, context: context, source: line.source, grantsAccess: false)
            }
        case .abandoned(let line, let signal):
            if let summary = LineSummary(line.text, commands: commandNames) {
                let name = signal == .hangup ? "SIGHUP" : "SIGTERM"
                let entry = AuditEntry.abandoned(summary, signal: name)
                record(entry, context: context, source: line.source, grantsAccess: false)
            }
        case .accessed(let access):
            // The command has run: an access that showed or changed a record and cannot be
            // recorded locks the session; a refused or failed one is reported.
            return record(.access(access), context: context, grantsAccess: access.outcome.mustBeRecorded)
        case .accessedTogether(let accesses):
            // One group: one lock, one write, one sync; each access still its own record.
            return record(
                accesses.map(AuditEntry.access),
                context: context,
                source: nil,
                grantsAccess: accesses.contains { $0.outcome.mustBeRecorded }
            )
        case .promptReady:
            // Not an event that matters to an auditor; the end of a command that showed no
            // record, whose line's record waits for a sync.
            syncRecords(context: context)
        }
        return .pass
    }

    /// Puts back what a rotation killed part-way left beside the log, with a `repair` record,
    /// before the session's first record: one stopped `ward audit rotate` must not leave every
    /// later verify failing. A repair that fails is logged; the sign-on record is tried anyway.
    private func repairInterruptedRotation(context: PluginContext) {
        guard InterruptedRotation.find(log: path) != nil else { return }
        let session = context.session
        let fields = AuditRecord.SessionFields(id: session.id, user: session.user, role: session.role?.rawValue)
        do {
            let writer = try self.writer ?? AuditWriter(path: path, chain: chain, policy: policy, clock: clock)
            self.writer = writer
            try writer.repairInterruptedRotation(session: fields, source: nil)
        } catch {
            context.logger.error("interrupted rotation not repaired", metadata: ["audit.error": "\(error)"])
        }
    }

    public func removed(status: ExitStatus, context: PluginContext) {
        writer?.close()
        writer = nil
        forwarder?.close()
        sink?.close()
    }

    /// Writes one record, then forwards it; on failure, fails closed when the event would let
    /// the user see data: `.deny` then, else `.pass`. A forward that fails under
    /// `on-forward-failure = "warn"` is a notice.
    @discardableResult
    fileprivate func record(
        _ entry: AuditEntry,
        context: PluginContext,
        source: Line.Source? = nil,
        grantsAccess: Bool
    ) -> Disposition {
        record([entry], context: context, source: source, grantsAccess: grantsAccess)
    }

    /// Writes `entries` as one group (`AuditWriter.append(_:session:source:)`), then forwards
    /// each; fails closed as `record(_:context:source:grantsAccess:)` does.
    ///
    /// `deferringSync`: a line's record under `always`, left to the next sync (see the type's
    /// comment).
    fileprivate func record(
        _ entries: [AuditEntry],
        context: PluginContext,
        source: Line.Source?,
        grantsAccess: Bool,
        deferringSync: Bool = false
    ) -> Disposition {
        let session = context.session
        let fields = AuditRecord.SessionFields(id: session.id, user: session.user, role: session.role?.rawValue)
        let written: [AuditWriter.Written]
        do {
            let writer = try self.writer ?? AuditWriter(path: path, chain: chain, policy: policy, clock: clock)
            self.writer = writer
            written = try writer.append(
                entries,
                session: fields,
                source: (source ?? lastSource)?.description,
                deferringSync: deferringSync
            )
        } catch {
            let kind = entries.first?.kind ?? .command
            context.logger.error("audit record not written", metadata: ["audit.kind": "\(kind.rawValue)"])
            // Accesses (a break of the glass among them) are written while their command runs,
            // before it shows the records: it ran, and what it found is not shown.
            // A write's `started` record comes before the write, which then is not made.
            let what =
                entries.contains { $0.details.contains { $0.key == "outcome" && $0.value == .string("started") } }
                ? "Not written"
                : entries.allSatisfy { [.access, .breakGlass].contains($0.kind) } ? "Not shown" : "Not run"
            let message = "\(what): the audit log cannot be written (\(error)). The session is locked."
            if grantsAccess {
                context.lock(reason: .failure)
                return .deny(message)
            }
            context.notice("The audit log cannot be written (\(error)).")
            return .pass
        }
        // `interval` syncs the log and its head on this timer; `always` only the head.
        if policy != .never, writer?.needsSync == true, context.deadline == nil {
            context.schedule(after: syncInterval)
        }
        sink?.append(written)
        for record in written {
            let disposition = forward(record, context: context, grantsAccess: grantsAccess)
            if case .deny = disposition { return disposition }
        }
        return .pass
    }

    /// Sends a record that is in the file to syslog; a failure is the site's choice: the same as
    /// the file's (`lock`), or a notice (`warn`).
    private func forward(_ written: AuditWriter.Written, context: PluginContext, grantsAccess: Bool) -> Disposition {
        guard let forwarder else { return .pass }
        do {
            try forwarder.send(line: written.line)
            return .pass
        } catch {
            context.logger.error("audit record not forwarded", metadata: ["audit.seq": "\(written.seq)"])
            if onForwardFailure == .lock, grantsAccess {
                context.lock(reason: .failure)
                return .deny("Not run: the audit record cannot be sent to syslog (\(error)). The session is locked.")
            }
            context.notice("Audit record \(written.seq) is in the log but not sent to syslog (\(error)).")
            return .pass
        }
    }

    /// The end of a command under `always`: its line's record, if no access's sync covered it,
    /// goes to disk before the next prompt. Failing that, the session locks, as a failed timer
    /// sync does.
    private func syncRecords(context: PluginContext) {
        sync(context: context) { (writer) throws(AuditError) in try writer.syncRecords() }
    }

    private func syncNow(context: PluginContext) {
        sync(context: context) { (writer) throws(AuditError) in try writer.sync() }
    }

    /// Runs one of the writer's syncs; a sync that fails locks the session.
    private func sync(context: PluginContext, _ step: (AuditWriter) throws(AuditError) -> Void) {
        guard let writer else { return }
        do throws(AuditError) {
            try step(writer)
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
