import WardPluginAPI

/// What one audit record says happened, before the writer gives it a number and a place in
/// the chain.
///
/// Each case of `Kind` is one event that matters; the details are the few fields that event
/// needs, in a fixed order. Nothing here ever holds a key press, a password or clinical text:
/// a line is reduced to a `LineSummary` first, and what a command did to a record comes from
/// the shell's access event (`RecordAccess`), which names the MRN and never a note's text.
///
/// Two families of kinds share the one chain: a session's (sign-on to sign-off, written by the
/// `AuditLog` plugin) and the administrative commands' (`ward user add`, `ward import`, …,
/// written by the `ward` executable), which name the Unix user who ran them. man ward-audit(5)
/// lists every kind with its fields; a new kind goes there too.
public struct AuditEntry: Equatable, Sendable {
    /// The record kinds, as the `kind` field writes them.
    public enum Kind: String, Equatable, Sendable, CaseIterable {
        // MARK: A session's

        /// A user signed on; `via` says from where (`terminal` and `tty`; `ssh`, `peer`, `port`
        /// and `tty`; `batch` and `script`).
        case signOn = "sign-on"
        /// A sign-on failed; `reason` says why (unknown-user, wrong-password, account-locked,
        /// account-refused).
        /// `user` is the name given only when such a user exists: an unknown name may be a
        /// password typed into the name field. `via` as for `sign-on`.
        case signOnFailed = "sign-on-failed"
        /// The session locked; `cause` says why (idle, suspend, focus, user, max-session, failure,
        /// request), and for a `request` (`ward lock`), `by` names who asked.
        case lock
        /// The user unlocked the session with their password.
        case unlock
        /// The lock screen refused the password (`reason` wrong-password) or the account, locked
        /// after too many wrong passwords (`account-locked`) or refused by the system's PAM
        /// account stage (`account-refused`).
        case unlockFailed = "unlock-failed"
        /// A command line passed the audit log on its way to the shell; `command` is its name only.
        case command
        /// What a command did to one record, after it ran: `action` (list, open, read, write,
        /// close), `mrn` exactly as stored, `section` for a read, and `outcome` (ok, denied,
        /// failed).
        case access
        /// A command line was refused, with the message the user saw.
        case denied
        /// A command that was running when SIGTERM or SIGHUP came, and was cut short: it did not
        /// finish (nothing it would have written was written). `signal` names the signal.
        case abandoned
        /// Break-the-glass: emergency access to a chart, with the user's stated reason and the
        /// outcome; the `access` record of the open follows.
        case breakGlass = "break-glass"
        /// Ctrl-Z: the process is about to stop.
        case suspend
        /// `fg` after a stop; `away_ms` is how long the process was stopped.
        case resume
        /// SIGHUP or SIGTERM reached the session.
        case signal
        /// The session ended; `how` says how (user, timeout, hangup, terminate, failed-attempts,
        /// end-of-input, command-failed, interrupt, line-too-long).
        case signOff = "sign-off"
        /// The first record of a file after rotation: `file` names the previous file (null when
        /// it was not found), `records` its record count, `how` who rotated (`command`,
        /// `renamed`, `missing`); its `prev` is the previous file's last hash (`AuditRotation`).
        case rotate
        /// What a rotation killed part-way left beside the log was put back (`InterruptedRotation`):
        /// `repaired` says what, and `unix_user` and `uid` who ran the command that found it
        /// (`ward audit rotate`, `ward audit verify --repair`; absent when a session's start did).
        case repair

        // MARK: Administrative commands', each with `unix_user`, `uid`, `outcome` (and `status`)

        /// `ward user add`: `target` and `target_role`.
        case userAdd = "user-add"
        /// `ward user remove`: `target`.
        case userRemove = "user-remove"
        /// `ward user passwd`: `target`.
        case passwordChange = "password-change"
        /// `ward user unlock`: `target`.
        case unlockAccount = "unlock-account"
        /// `ward user disable`: `target`.
        case userDisable = "user-disable"
        /// `ward import`, one record per path given (the NDJSON files named on the line are one
        /// export, named by its first file): `path`, and the counts `files`, `bundles`,
        /// `patients`, `resources`, `failures`.
        case `import`
        /// `ward demo`: `patients`, `seed`, and `records` (`made` or `reused`).
        case demo
        /// `ward db migrate`: `backend` (`sqlite` or `postgresql`), `database` (the records file, or
        /// the database and its server), `forced` (`yes` or `no`), then `version` (the schema's after the run, null
        /// when it failed before knowing) and `applied` (the migrations applied, separated by spaces).
        case dbMigrate = "db-migrate"
        /// A command given to `ssh HOST COMMAND` where Ward is the account's way in: `peer` and
        /// `port` (null without `SSH_CONNECTION`), then `allowed` (the kind the site let through,
        /// `batch`) or `reason` (why it was refused). Never the command's text: it may hold a
        /// patient's name or a password typed in the wrong place.
        case sshCommand = "ssh-command"
        /// The audit trail was read: in a session, an auditor's `audit` (or another role refused
        /// it, `outcome` denied); from the command line, `ward audit show|report` with
        /// `unix_user` and `uid`. `question` holds the filters as given.
        case auditRead = "audit-read"
        /// `ward lock`: `by` (the Ward user who asked, null for a member of the site's admin
        /// group), `target` (`user NAME`, `session ID` or `all`), and `sessions`, the identifiers
        /// asked to lock, separated by spaces.
        case lockRequest = "lock-request"

        // MARK: ward exec

        /// `ward exec` started a program: `path`, `arguments` (the site's then the user's, a
        /// password in one masked), and its sandbox: `sandbox` (`landlock N, seccomp`, or `off`),
        /// `read`, `write` and `may-run` (what the site let it reach, beyond the system's
        /// directories).
        case execStart = "exec-start"
        /// The program, or one it started, tried to start a program the site did not allow
        /// (`may-run`); the exec failed. `path` as it named it, `process` (its pid), `reason`.
        case execDenied = "exec-denied"
        /// The program `ward exec` ran ended: `status` (its exit status, or 128 + the signal)
        /// and `signal` when a signal ended it.
        case execExit = "exec-exit"
        /// A line typed into the program, where the site records them (`[exec] record-input`):
        /// `text` holds whatever was typed, patient data included.
        case input
    }

    public var kind: Kind
    /// The event's own fields, in the order they are written, after the envelope.
    public var details: [(key: String, value: CanonicalJSON.Value)]
    /// For `signOnFailed`: the name given, since nobody is signed on.
    public var userOverride: String?

    public static func == (a: AuditEntry, b: AuditEntry) -> Bool {
        a.kind == b.kind && a.userOverride == b.userOverride && a.details.count == b.details.count
            && zip(a.details, b.details).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    }

    init(_ kind: Kind, _ details: [(key: String, value: CanonicalJSON.Value)] = [], user: String? = nil) {
        self.kind = kind
        self.details = details
        self.userOverride = user
    }

    /// `source` nil (outside a session, in tests) writes no `via` field.
    public static func signOn(source: SignOnSource? = nil) -> AuditEntry {
        AuditEntry(.signOn, fields(of: source))
    }

    /// `user` nil for a name no user has: the record then says `unknown-user` and never what
    /// was typed.
    public static func signOnFailed(user: String?, reason: SignOnFailure, source: SignOnSource? = nil) -> AuditEntry {
        AuditEntry(.signOnFailed, [("reason", .string(reason.rawValue))] + fields(of: source), user: user)
    }

    /// The user is the session's, in the envelope.
    public static func unlockFailed(reason: SignOnFailure) -> AuditEntry {
        AuditEntry(.unlockFailed, [("reason", .string(reason.rawValue))])
    }

    /// `via`, then where: `tty` (null without one), `peer` and `port` for SSH, `script` for a batch.
    static func fields(of source: SignOnSource?) -> [(key: String, value: CanonicalJSON.Value)] {
        guard let source else { return [] }
        let via: (key: String, value: CanonicalJSON.Value) = ("via", .string(source.name))
        let tty = { (tty: String?) -> (key: String, value: CanonicalJSON.Value) in
            ("tty", tty.map { .string($0) } ?? .null)
        }
        switch source {
        case .terminal(let name):
            return [via, tty(name)]
        case .ssh(let peer, let port, let name):
            return [via, ("peer", .string(peer)), ("port", .integer(Int64(port))), tty(name)]
        case .batch(let script):
            return [via, ("script", .string(script))]
        }
    }

    /// `by`: who asked, for a lock `ward lock` requested; absent otherwise.
    public static func lock(cause: String, by requester: String? = nil) -> AuditEntry {
        AuditEntry(.lock, [("cause", .string(cause))] + (requester.map { [("by", .string($0))] } ?? []))
    }

    public static func unlock() -> AuditEntry { AuditEntry(.unlock) }

    /// A line as the shell is about to run it: its command's name.
    public static func command(_ line: LineSummary) -> AuditEntry {
        AuditEntry(.command, line.fields)
    }

    /// A line refused before the shell saw it; `reason` is the message the user saw, `plugin`
    /// the name of the plugin that said no, absent when Ward's own safeguard refused the line
    /// (a line too long).
    public static func denied(_ line: LineSummary, reason: String, by plugin: String? = nil) -> AuditEntry {
        let refuser = plugin.map { [(key: "plugin", value: CanonicalJSON.Value.string($0))] } ?? []
        return AuditEntry(.denied, line.fields + [("reason", .string(reason))] + refuser)
    }

    /// A command cut short by `signal` (`SIGTERM`, `SIGHUP`) as Ward ended; its `command` record
    /// came before this one.
    public static func abandoned(_ line: LineSummary, signal: String) -> AuditEntry {
        AuditEntry(.abandoned, line.fields + [("signal", .string(signal))])
    }

    /// What a command did to one record, as the shell told it. A break-the-glass is its own
    /// kind, with the reason the user typed (a justification, never a note); every other
    /// action is an `access` record, with the section for a read.
    public static func access(_ access: RecordAccess) -> AuditEntry {
        let mrn: (key: String, value: CanonicalJSON.Value) = ("mrn", .string(access.record))
        let outcome: (key: String, value: CanonicalJSON.Value) = ("outcome", .string(access.outcome.rawValue))
        switch access.action {
        case .brokeGlass:
            return AuditEntry(.breakGlass, [mrn, ("reason", .string(access.detail ?? "")), outcome])
        case .read:
            let section = access.detail.map { [(key: "section", value: CanonicalJSON.Value.string($0))] } ?? []
            return AuditEntry(.access, [("action", .string(access.action.rawValue)), mrn] + section + [outcome])
        case .opened:
            // `how: resume`: reopened after an unlock, not typed.
            let how = access.detail.map { [(key: "how", value: CanonicalJSON.Value.string($0))] } ?? []
            return AuditEntry(.access, [("action", .string(access.action.rawValue)), mrn] + how + [outcome])
        case .listed, .wrote, .closed:
            return AuditEntry(.access, [("action", .string(access.action.rawValue)), mrn, outcome])
        }
    }

    public static func suspend() -> AuditEntry { AuditEntry(.suspend) }

    public static func resume(away: Duration) -> AuditEntry {
        AuditEntry(.resume, [("away_ms", .integer(away.nanoseconds / 1_000_000))])
    }

    /// `name` as a signal prints: `SIGHUP`, `SIGTERM`.
    public static func signal(_ name: String) -> AuditEntry { AuditEntry(.signal, [("signal", .string(name))]) }

    public static func signOff(how: String) -> AuditEntry { AuditEntry(.signOff, [("how", .string(how))]) }

    /// What a killed rotation left, put back; `administrator` is who ran the command, nil for
    /// a session.
    public static func repair(_ repaired: String, by administrator: UnixUser?) -> AuditEntry {
        AuditEntry(.repair, (administrator?.fields ?? []) + [("repaired", .string(repaired))])
    }
}

// MARK: - Administrative commands

extension AuditEntry {
    /// Who ran an administrative command: the account of the process's real user id, as
    /// `getpwuid(getuid())` names it (nil when the password database has no entry), and the id.
    public struct UnixUser: Equatable, Sendable {
        public var name: String?
        public var uid: UInt32

        public init(name: String?, uid: UInt32) {
            self.name = name
            self.uid = uid
        }

        /// `unix_user` and `uid`, as a record writes them.
        var fields: [(key: String, value: CanonicalJSON.Value)] {
            [("unix_user", name.map { .string($0) } ?? .null), ("uid", .integer(Int64(uid)))]
        }
    }

    /// How an administrative command ended: `outcome` ok, or failed with the exit `status`; nil
    /// for the record written before the change (`outcome` started), whose end is not known yet.
    public static func outcomeFields(_ status: ExitStatus?) -> [(key: String, value: CanonicalJSON.Value)] {
        guard let status else { return [("outcome", .string(RecordAccess.Outcome.started.rawValue))] }
        return status == .success
            ? [("outcome", .string(RecordAccess.Outcome.ok.rawValue))]
            : [
                ("outcome", .string(RecordAccess.Outcome.failed.rawValue)),
                ("status", .integer(Int64(status.rawValue))),
            ]
    }

    /// One administrative record: who ran it, the command's own fields, how it ended.
    public static func administrative(
        _ kind: Kind,
        by user: UnixUser,
        _ details: [(key: String, value: CanonicalJSON.Value)],
        status: ExitStatus?
    ) -> AuditEntry {
        AuditEntry(kind, user.fields + details + outcomeFields(status))
    }

    /// An auditor's `audit` in a session: the question as typed, and whether it was answered.
    public static func auditRead(_ reading: AuditReading) -> AuditEntry {
        AuditEntry(
            .auditRead,
            [("question", .string(reading.question)), ("outcome", .string(reading.outcome.rawValue))]
        )
    }

    /// `ward audit show|report`: the question as given on the command line.
    public static func auditRead(question: String, by user: UnixUser) -> AuditEntry {
        administrative(.auditRead, by: user, [("question", .string(question))], status: .success)
    }

    /// `ward user add|remove|passwd|unlock`: `target`, and `target_role` for an add.
    public static func account(
        _ kind: Kind,
        target: String,
        role: Role? = nil,
        by user: UnixUser,
        status: ExitStatus?
    ) -> AuditEntry {
        let role = role.map { [(key: "target_role", value: CanonicalJSON.Value.string($0.rawValue))] } ?? []
        return administrative(kind, by: user, [("target", .string(target))] + role, status: status)
    }

    /// `ward lock`: who asked (`wardUser`, nil for the admin group), what they named, and the
    /// sessions asked to lock.
    public static func lockRequest(
        by user: UnixUser,
        wardUser: String?,
        target: String,
        sessions: [String],
        status: ExitStatus?
    ) -> AuditEntry {
        administrative(
            .lockRequest,
            by: user,
            [
                ("by", wardUser.map { .string($0) } ?? .null), ("target", .string(target)),
                ("sessions", .string(sessions.joined(separator: " "))),
            ],
            status: status
        )
    }

    /// What `ward import` did with one path it was given (a bundle, a directory, or the NDJSON
    /// files named on the line).
    public struct ImportCounts: Equatable, Sendable {
        /// Bundle files read.
        public var files: Int
        /// Bundles imported whole.
        public var bundles: Int
        /// NDJSON exports read (a directory's `*.ndjson` files, or those named on the line).
        public var exports: Int
        /// NDJSON exports imported whole.
        public var exportsImported: Int
        public var patients: Int
        /// Resources imported, all types together.
        public var resources: Int
        /// Bundles that imported nothing, and inputs that could not be read.
        public var failures: Int

        public init(
            files: Int,
            bundles: Int,
            exports: Int = 0,
            exportsImported: Int = 0,
            patients: Int,
            resources: Int,
            failures: Int
        ) {
            self.files = files
            self.bundles = bundles
            self.exports = exports
            self.exportsImported = exportsImported
            self.patients = patients
            self.resources = resources
            self.failures = failures
        }
    }

    /// A command given over SSH: where from, and the kind the site allowed (`allowed`) or why it
    /// was refused (`reason`, with status 77).
    public static func sshCommand(
        peer: String?,
        port: Int?,
        allowed: String?,
        reason: String?,
        by user: UnixUser,
        status: ExitStatus?
    ) -> AuditEntry {
        var fields: [(key: String, value: CanonicalJSON.Value)] = [
            ("peer", peer.map { .string($0) } ?? .null), ("port", port.map { .integer(Int64($0)) } ?? .null),
        ]
        if let allowed { fields.append(("allowed", .string(allowed))) }
        if let reason { fields.append(("reason", .string(reason))) }
        return administrative(.sshCommand, by: user, fields, status: status)
    }

    /// `ward import`: one record per path, the path as the command resolved it.
    public static func importBundles(
        path: String,
        counts: ImportCounts,
        by user: UnixUser,
        status: ExitStatus?
    )
        -> AuditEntry
    {
        administrative(
            .import,
            by: user,
            [
                ("path", .string(path)), ("files", .integer(Int64(counts.files))),
                ("bundles", .integer(Int64(counts.bundles))), ("exports", .integer(Int64(counts.exports))),
                ("exports_imported", .integer(Int64(counts.exportsImported))),
                ("patients", .integer(Int64(counts.patients))),
                ("resources", .integer(Int64(counts.resources))), ("failures", .integer(Int64(counts.failures))),
            ],
            status: status
        )
    }

    /// `ward db migrate`: which database, and what it applied; `version` nil when the run failed
    /// before it knew the schema's. `sessionRole`, the role `--session-role` narrowed to what
    /// sessions need: who can write the records is the auditor's question too.
    public static func dbMigrate(
        backend: String,
        database: String,
        forced: Bool,
        version: Int?,
        applied: [String],
        sessionRole: String? = nil,
        by user: UnixUser,
        status: ExitStatus?
    ) -> AuditEntry {
        administrative(
            .dbMigrate,
            by: user,
            [
                ("backend", .string(backend)), ("database", .string(database)),
                ("forced", .string(forced ? "yes" : "no")),
                ("version", version.map { .integer(Int64($0)) } ?? .null),
                ("applied", .string(applied.joined(separator: " "))),
                ("session-role", sessionRole.map { .string($0) } ?? .null),
            ],
            status: status
        )
    }

    /// `ward demo`: how many patients from which seed, and whether they were `made` or `reused`
    /// (nil, written null, before the command knows).
    public static func demo(
        patients: Int,
        seed: UInt64,
        reused: Bool?,
        by user: UnixUser,
        status: ExitStatus?
    )
        -> AuditEntry
    {
        administrative(
            .demo,
            by: user,
            [
                ("patients", .integer(Int64(patients))), ("seed", .string(String(seed))),
                ("records", reused.map { .string($0 ? "reused" : "made") } ?? .null),
            ],
            status: status
        )
    }
}

// MARK: - ward exec

extension AuditEntry {
    /// `arguments` is one string, each argument quoted as a shell would need it: a record is
    /// flat (`CanonicalJSON`).
    public static func execStart(_ start: ProgramStart) -> AuditEntry {
        var details: [(key: String, value: CanonicalJSON.Value)] = [("path", .string(start.path))]
        if let arguments = start.arguments { details.append(("arguments", .string(shellWords(arguments)))) }
        if let sandbox = start.sandbox {
            let parts =
                (sandbox.landlockABI > 0 ? ["landlock \(sandbox.landlockABI)"] : [])
                + (sandbox.seccomp ? ["seccomp"] : [])
            details += [
                ("sandbox", .string(parts.joined(separator: ", "))),
                ("read", .string(shellWords(sandbox.read))),
                ("write", .string(shellWords(sandbox.write))),
                ("may-run", .string(shellWords(sandbox.mayRun))),
            ]
        } else {
            details.append(("sandbox", .string("off")))
        }
        return AuditEntry(.execStart, details)
    }

    public static func execDenied(_ attempt: ProgramExecAttempt) -> AuditEntry {
        AuditEntry(
            .execDenied,
            [
                ("path", .string(attempt.path)), ("process", .integer(Int64(attempt.process))),
                ("reason", .string(attempt.reason)),
            ]
        )
    }

    public static func execExit(_ exit: ProgramExit) -> AuditEntry {
        var details: [(key: String, value: CanonicalJSON.Value)] = [("status", .integer(Int64(exit.status.rawValue)))]
        if case .killed(let signal) = exit { details.append(("signal", .integer(Int64(signal)))) }
        return AuditEntry(.execExit, details)
    }

    /// `a 'b c' 'it'\''s'`: each word as it was, quoted where a shell would split or expand it.
    static func shellWords(_ words: [String]) -> String {
        words.map { word in
            let plain =
                !word.isEmpty
                && word.utf8.allSatisfy { c in
                    (0x30...0x39).contains(c) || (0x41...0x5A).contains(c) || (0x61...0x7A).contains(c)
                        || "-_./=:,+@%".utf8.contains(c)
                }
            return plain
                ? word
                : "'" + word.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
        }.joined(separator: " ")
    }

    /// A line typed into the program, whole: only where the site asks for it.
    public static func input(_ text: String) -> AuditEntry { AuditEntry(.input, [("text", .string(text))]) }
}
