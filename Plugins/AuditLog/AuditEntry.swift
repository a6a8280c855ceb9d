import WardPluginAPI

/// What one audit record says happened, before the writer gives it a number and a place in
/// the chain.
///
/// Each case of `Kind` is one event that matters; the details are the few fields that event
/// needs, in a fixed order. Nothing here ever holds a key press, a password or clinical text:
/// a line is reduced to a `LineSummary` first, and what a command did to a record comes from
/// the shell's access event (`RecordAccess`), which names the MRN and never a note's text.
public struct AuditEntry: Equatable, Sendable {
    /// The record kinds, as the `kind` field writes them.
    public enum Kind: String, Equatable, Sendable, CaseIterable {
        /// A user signed on.
        case signOn = "sign-on"
        /// A sign-on failed (wrong password, unknown user); `user` is the name given.
        case signOnFailed = "sign-on-failed"
        /// The session locked; `cause` says why (idle, suspend, focus, user, max-session, failure).
        case lock
        /// The user unlocked the session with their password.
        case unlock
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
        /// `ward exec` started a program: `path`, and `arguments` only where the site records
        /// them (`[exec] record-arguments`).
        case execStart = "exec-start"
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

    public static func signOn() -> AuditEntry { AuditEntry(.signOn) }

    public static func signOnFailed(user: String) -> AuditEntry { AuditEntry(.signOnFailed, user: user) }

    public static func lock(cause: String) -> AuditEntry { AuditEntry(.lock, [("cause", .string(cause))]) }

    public static func unlock() -> AuditEntry { AuditEntry(.unlock) }

    /// A line as the shell is about to run it: its command's name.
    public static func command(_ line: LineSummary) -> AuditEntry {
        AuditEntry(.command, line.fields)
    }

    /// A line refused by an interceptor before the shell saw it; `reason` is the message the
    /// user saw.
    public static func denied(_ line: LineSummary, reason: String) -> AuditEntry {
        AuditEntry(.denied, line.fields + [("reason", .string(reason))])
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
        case .listed, .opened, .wrote, .closed:
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
}

// MARK: - ward exec

extension AuditEntry {
    /// `arguments` is one string, each argument quoted as a shell would need it: a record is
    /// flat (`CanonicalJSON`).
    public static func execStart(_ start: ProgramStart) -> AuditEntry {
        let arguments = start.arguments.map { [(key: "arguments", value: CanonicalJSON.Value.string(shellWords($0)))] }
        return AuditEntry(.execStart, [("path", .string(start.path))] + (arguments ?? []))
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
