import ArgumentParser
import AuditLog
import BuiltInPlugins
import Glibc
import Logging
import WardCore

/// The audit records of the administrative commands (`ward user add|remove|passwd|unlock`,
/// `ward import`, `ward demo`), written to the log the sessions write, through the same
/// `AuditWriter`, so that the chain stays one chain and `ward audit verify` checks both.
///
/// The log is the one a session would write: the site's `audit-log` plugin builds it (its
/// `path` and `key-file`, else the home's `audit.jsonl`). A site whose chain has no `audit-log`
/// writes no session records, and so no administrative ones either.
///
/// Fails closed: `open` opens the log before the command changes anything, and a log that cannot
/// be opened (unsafe, read-only, its head not matching, a key file refused) stops the command
/// there, with nothing changed, naming the file (`AdministrativeAuditError.cannotOpen`, the audit
/// error's exit status). Each change has two records: one with `outcome` `started` before it
/// (synced, whatever the site's `fsync`), and one after it with how it ended: `ok`, or `failed`
/// with the exit status. The first is what makes the change accountable: when it cannot be
/// written the change is not made (`notStarted`), and a crash (`kill -9`) during the change
/// leaves it recorded as an attempt whose outcome is unknown, never a change without a record.
/// A change cannot be taken back once made, so when the second record cannot be written the
/// command says so, naming the file, and exits with the audit error's status (`notRecorded`): a
/// script sees the failure.
///
/// A site that forwards records (`forward = "syslog"`) forwards these too; with
/// `on-forward-failure = "lock"` a socket that cannot be reached stops the command before the
/// change, as an unwritable log does, and a forward that fails after it exits 74.
///
/// Each record names the Unix user who ran the command (`getpwuid(getuid())`, the real user id:
/// under sudo that is root, and sudo's own log names the person).
struct AdministrativeAudit {
    /// Nil when the site's chain has no audit log.
    private let writer: AuditWriter?
    /// The site's `forward = "syslog"`, nil when records stay local.
    private let forwarder: SyslogForwarder?
    /// `on-forward-failure`: `lock` fails the command as an unwritten record does; `warn` says so.
    private let onForwardFailure: SyslogForwarder.FailurePolicy
    /// The site's database, when its records are on PostgreSQL: the records go there too, as a
    /// session's do (`DatabaseAuditSink`); nil otherwise.
    private let sink: DatabaseAuditSink?
    /// Who ran the command.
    let unixUser: AuditEntry.UnixUser
    /// A fresh identifier for this command's records, as a session has one.
    private let session = AuditRecord.SessionFields(id: SessionID.make(), user: nil, role: nil)

    /// Opens the log for `home` under the site file `global.site` names. Call it before changing
    /// anything.
    ///
    /// - Throws: `ConfigError` for a site file that does not parse, `AdministrativeAuditError`
    ///   for a log that cannot be opened.
    /// `sendingToDatabase`: whether the records also go to the site's database when its records
    /// are on PostgreSQL; `ward db migrate`'s do not, as the table may not be there yet.
    static func open(
        global: GlobalOptions,
        home: WardHome,
        sendingToDatabase: Bool = true
    ) throws
        -> AdministrativeAudit
    {
        let policy = try SitePolicy.load(siteOption: global.site, plugins: pluginRegistry)
        guard let settings = policy.plugins.first(where: { $0.name == AuditLog.name }) else {
            return AdministrativeAudit(writer: nil, forwarder: nil, onForwardFailure: .warn, sink: nil)
        }
        // The plugin reads its own settings, so the log, the key and the sync are the sessions'.
        let log = try AuditLog(settings: settings, environment: PluginEnvironment(home: home.path, policy: policy))
        let writer: AuditWriter
        do throws(AuditError) {
            writer = try AuditWriter(path: log.path, chain: log.chain, policy: .always)
            try writer.checkAppendable()
        } catch {
            throw AdministrativeAuditError.cannotOpen(error)
        }
        if log.onForwardFailure == .lock {
            do throws(SyslogForwarder.Failure) {
                try log.forwarder?.open()
            } catch {
                throw AdministrativeAuditError.notForwarded(kind: nil, error)
            }
        }
        return AdministrativeAudit(
            writer: writer,
            forwarder: log.forwarder,
            onForwardFailure: log.onForwardFailure,
            sink: sendingToDatabase
                ? try SessionSetup.databaseAuditSink(policy: policy, home: home, logger: Logger(label: "ward")) : nil
        )
    }

    private init(
        writer: AuditWriter?,
        forwarder: SyslogForwarder?,
        onForwardFailure: SyslogForwarder.FailurePolicy,
        sink: DatabaseAuditSink?
    ) {
        self.writer = writer
        self.forwarder = forwarder
        self.onForwardFailure = onForwardFailure
        self.sink = sink
        self.unixUser = Self.currentUnixUser()
    }

    /// Whether records are written at all (the site's chain has an audit log).
    var isEnabled: Bool { writer != nil }

    /// Records `entry` as started (`entry(nil)`), runs `change`, then records `entry` with how
    /// it ended: success, or the exit status of the error it threw, which is then thrown on.
    /// When the started record cannot be written, `change` does not run (`notStarted`). A record
    /// that cannot be written after a change that failed too is reported, and the change's error
    /// is the one thrown.
    func recording<Result>(_ entry: (ExitStatus?) -> AuditEntry, change: () throws -> Result) throws -> Result {
        try recordStart(entry(nil))
        let result: Result
        do {
            result = try change()
        } catch {
            do {
                try record(entry(Self.exitStatus(of: error)))
            } catch let failure {
                StandardError.report("\(failure)")
            }
            throw error
        }
        try record(entry(.success))
        return result
    }

    /// Runs `change` to the account `target` (`user-add`, `user-remove`, `password-change`,
    /// `unlock-account`) and records it, as `recording(_:change:)`.
    func recording<Result>(
        _ kind: AuditEntry.Kind,
        target: String,
        role: Role? = nil,
        change: () throws -> Result
    ) throws -> Result {
        try recording({ .account(kind, target: target, role: role, by: unixUser, status: $0) }, change: change)
    }

    /// Appends the record written before a change (`outcome` started): when it cannot be
    /// written, or forwarded where the site says `on-forward-failure = "lock"`, the change must
    /// not be made, and the error says nothing was changed.
    func recordStart(_ entry: AuditEntry) throws(AdministrativeAuditError) {
        do throws(AdministrativeAuditError) {
            try record(entry)
        } catch .notRecorded(let kind, let error) {
            throw .notStarted(kind: kind, error)
        } catch .notForwarded(_, let error) {
            throw .notForwarded(kind: nil, error)
        } catch {
            throw error
        }
    }

    /// Appends one record, then forwards it when the site says so; nothing when the site has no
    /// audit log.
    func record(_ entry: AuditEntry) throws(AdministrativeAuditError) {
        guard let writer else { return }
        let written: AuditWriter.Written
        do throws(AuditError) {
            written = try writer.append(entry, session: session, source: nil)
        } catch {
            throw .notRecorded(kind: entry.kind.rawValue, error)
        }
        // One record a command, and the command's last: sent now, and not kept for later.
        sink?.append([written])
        sink?.close()
        guard let forwarder else { return }
        do throws(SyslogForwarder.Failure) {
            try forwarder.send(line: written.line)
        } catch {
            if onForwardFailure == .lock { throw .notForwarded(kind: entry.kind.rawValue, error) }
            StandardError.report(
                "warning: audit record \(written.seq) is in the log but not sent to syslog (\(error))."
            )
        }
    }

    /// The exit status the command will end with for `error`, as `Ward.main` decides it.
    static func exitStatus(of error: any Error) -> ExitStatus {
        switch error {
        case let error as any WardError: error.exitStatus
        case is ValidationError: .usage
        default: .failure
        }
    }

    /// The real user id's account name, nil when the password database has none.
    static func currentUnixUser() -> AuditEntry.UnixUser {
        let uid = getuid()
        var entry = passwd()
        var found: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        let status = getpwuid_r(uid, &entry, &buffer, buffer.count, &found)
        let name = status == 0 && found != nil ? entry.pw_name.map { String(cString: $0) } : nil
        return AuditEntry.UnixUser(name: name, uid: uid)
    }
}

/// Why an administrative command did not change anything, or could not record its change.
enum AdministrativeAuditError: WardError, Equatable {
    /// The audit log could not be opened before the change: nothing was changed.
    case cannotOpen(AuditError)
    /// The record of the attempt (`kind`, `outcome` started) could not be written: nothing was
    /// changed.
    case notStarted(kind: String, AuditError)
    /// The change was made, but its record (`kind`) could not be written.
    case notRecorded(kind: String, AuditError)
    /// The site forwards records (`on-forward-failure = "lock"`) and the syslog socket cannot be
    /// reached: before the change (`kind` nil: nothing was changed), or after it.
    case notForwarded(kind: String?, SyslogForwarder.Failure)

    var description: String {
        switch self {
        case .cannotOpen(let error):
            "\(error) Nothing was changed: an administrative command runs only when its audit record can be written."
        case .notStarted(let kind, let error):
            "\(error) Nothing was changed: \(kind) is made only once its audit record is written."
        case .notRecorded(let kind, let error):
            "the change was made and recorded as started, but its audit record of the outcome (\(kind)) was not written: \(error)"
        case .notForwarded(nil, let error):
            "\(error) Nothing was changed: the site's audit log forwards every record to syslog (on-forward-failure = \"lock\")."
        case .notForwarded(let kind?, let error):
            "the change was made and recorded, but its audit record (\(kind)) was not sent to syslog: \(error)"
        }
    }

    var exitStatus: ExitStatus {
        switch self {
        case .cannotOpen(let error), .notStarted(_, let error), .notRecorded(_, let error): error.exitStatus
        case .notForwarded: .ioError
        }
    }
}
