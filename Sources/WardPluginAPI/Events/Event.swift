/// One thing that happened to the session, as every interceptor sees it.
///
/// Every input passes here before the shell acts on it: the terminal's bytes become `.key`,
/// readline's finished lines become `.line`, signals become `.lifecycle`, focus reports become
/// `.focus`, a plugin's own deadline becomes `.timer`, and the session announces its changes as
/// `.session`. This is the terminal's `UIApplication.sendEvent(_:)`.
public enum Event: Equatable, Sendable {
    /// One key press (or one paste) on the terminal, before readline sees it.
    case key(KeyPress)
    /// A completed command line, before the shell runs it.
    case line(Line)
    /// A signal from the system or the job-control shell.
    case lifecycle(Lifecycle)
    /// The terminal window gained or lost focus (`ESC[I`, `ESC[O`).
    case focus(Focus)
    /// The deadline that this interceptor scheduled has come. Only its owner sees it.
    case timer
    /// The session changed state; sent by Ward itself, never by a plugin.
    case session(SessionEvent)
}

/// What the terminal's focus reporting said.
public enum Focus: Equatable, Sendable {
    case gained
    case lost
}

/// Signals, as values. The handlers only write a byte; the loop turns them into these.
public enum Lifecycle: Equatable, Sendable {
    /// Ctrl-C: cancel the line being typed.
    case interrupt
    /// Ctrl-Z (SIGTSTP): about to stop.
    case suspend
    /// `fg` (SIGCONT) after a stop, with how long the process was away (boot time, so sleep counts).
    case resume(away: Duration)
    /// The terminal went away (SIGHUP).
    case hangup
    /// Asked to end (SIGTERM).
    case terminate
    /// The window changed size (SIGWINCH); its new size, as the terminal reports it (24 rows of
    /// 80 columns when it does not say). Plugins get the size with the event, so none asks the
    /// terminal itself.
    case resize(rows: Int, columns: Int)
}

/// Changes of the session's state, announced through the chain so plugins (the audit log) see them.
public enum SessionEvent: Equatable, Sendable {
    case signedOn(user: String, role: Role)
    /// A sign-on was refused. `user` is the name given when such a user exists, and nil when
    /// none does: a name nobody has is often a password typed into the name field, so it is
    /// never passed on.
    case signOnFailed(user: String?, reason: SignOnFailure)
    case locked(LockReason)
    case unlocked(user: String)
    /// The lock screen refused `user`'s password, or refused the account outright because too
    /// many wrong passwords locked it (`.accountLocked`).
    case unlockFailed(user: String, reason: SignOnFailure)
    case signedOff(SignOffReason)
    /// A line was refused, with the message shown. `by` names who said no: the refusing
    /// plugin's name (`Plugin.name`), or nil when Ward's own safeguard refused it (a line too
    /// long, a session locked again as it signed on). An auditor needs who decided, as sudo's
    /// audit plugins hear `plugin_name`.
    case denied(Line, message: String, by: String?)
    /// A command was cut short because Ward is ending (`because`: `.terminate`, `.hangup`): the
    /// watchdog interrupted it (`CommandInterruption`) and it failed without finishing. Sent
    /// after the line's own record, before the signal's.
    case abandoned(Line, because: Lifecycle)
    /// What a command did to one record (opened, read, wrote, closed, broke the glass) and how it
    /// ended, told by the command runner (`CommandRunner.takeSessionEvents`) before the command
    /// shows anything of the record (its output barrier), else once it ran. A `deny` withholds
    /// the rest of the command's output and fails it with the message.
    case accessed(RecordAccess)
    /// What one command did to several records, in the order it did it: a `find` lists up to 20
    /// patients, one access each. One event rather than one per record, so that the audit log
    /// appends them as one group (one lock, one write, one sync for all of them: `AuditWriter`);
    /// a plugin that takes accesses one at a time treats it as each of them in turn.
    case accessedTogether([RecordAccess])
    /// The prompt is back: a command has finished and Ward waits for the user. A running command
    /// is not idleness, so the idle timer counts from here.
    case promptReady
    /// `ward exec` started its program, before the program runs: a plugin's `deny` (an audit
    /// log that cannot record it) keeps it from starting.
    case programStarted(ProgramStart)
    /// The program `ward exec` ran has ended (by itself, or ended by Ward on a lock or sign-off).
    case programExited(ProgramExit)
    /// The program, or one it started, tried to start a program the site did not allow: the
    /// exec has already failed; this is for the record.
    case programExecDenied(ProgramExecAttempt)
    /// An auditor read the audit trail from the shell (`audit`), or another role was refused
    /// it: told before anything of the trail is shown, so that reading the trail is itself on
    /// record; a `deny` withholds the answer.
    case auditRead(AuditReading)
}

/// One reading of the audit trail from the shell: the question as asked, and how it ended.
public struct AuditReading: Equatable, Sendable {
    /// The filters as typed after `audit` (`--user alice --since 30d`, `report 8f2c…`).
    public var question: String
    /// `ok` when the answer was shown, `denied` when the role may not read the trail.
    public var outcome: RecordAccess.Outcome

    public init(question: String, outcome: RecordAccess.Outcome) {
        self.question = question
        self.outcome = outcome
    }
}

/// Why a password was refused, at sign-on or at the lock screen.
public enum SignOnFailure: String, Equatable, Sendable, CaseIterable, CustomStringConvertible {
    /// No user has the name given; the name itself is not kept.
    case unknownUser = "unknown-user"
    /// The user exists and the password was wrong.
    case wrongPassword = "wrong-password"
    /// The account is locked after too many wrong passwords (`max-failed-attempts`); the
    /// password was not checked.
    case accountLocked = "account-locked"
    /// The password was right, but the system refused the account (PAM's account stage: an
    /// expired or locked system account, a password that must be changed first).
    case accountRefused = "account-refused"
    /// `ward user disable` closed the account; the password was not checked.
    case accountDisabled = "account-disabled"

    public var description: String { rawValue }
}

/// Why a session locked. Printed on the lock screen and recorded in the audit log.
public enum LockReason: String, Equatable, Sendable, CustomStringConvertible {
    /// No key for the idle timeout.
    case idle
    /// Away (stopped with Ctrl-Z) longer than the grace period.
    case suspend
    /// The terminal window was out of focus too long.
    case focus
    /// The user typed `lock`.
    case user
    /// The absolute session limit passed, however active the user was.
    case maxSession = "max-session"
    /// A plugin failed closed (an audit record that could not be written).
    case failure
    /// Someone asked from outside with `ward lock`; who asked is `SessionInfo.lockRequestedBy`.
    case request

    public var description: String { rawValue }
}

/// How a session ended.
public enum SignOffReason: String, Equatable, Sendable, CustomStringConvertible {
    /// `logout`, `exit`, Ctrl-D.
    case user
    /// Locked longer than `signout-after`, or the password prompt timed out.
    case timeout
    /// The terminal closed (SIGHUP).
    case hangup
    /// SIGTERM.
    case terminate
    /// Too many wrong passwords.
    case failedAttempts = "failed-attempts"
    /// Batch input ended.
    case endOfInput = "end-of-input"
    /// A batch stopped at its first failing command (`--on-error stop`).
    case commandFailed = "command-failed"
    /// Ctrl-C or SIGQUIT stopped a batch.
    case interrupt
    /// A batch line was longer than `Line.maximumLength`: the batch stopped before it.
    case lineTooLong = "line-too-long"
    /// The program `ward exec` ran ended by itself; Ward exits with its status.
    case programExited = "program-exited"
    /// The user was removed or disabled (`ward user remove`, `ward user disable`), which signs
    /// off each of their live sessions.
    case revoked

    public var description: String { rawValue }
}
