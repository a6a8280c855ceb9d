/// Where a session's input comes from and where its output goes: the terminal, or a script.
///
/// Everything else is `SessionDriver`'s, written once: the state machine, the chain, the loop,
/// signals, deadlines, the requests, the lock and the ending. A front end reads its input and
/// hands it to the driver (a key through `send`, a line through `submit`, a password through
/// `checkPassword`); the driver calls back here to show what the session decided (a prompt, a
/// notice, the lock screen).
///
/// - Important: Not `Sendable`. It runs on the driver's loop thread.
public protocol SessionFrontEnd: AnyObject {
    /// Who signs on, when known before anyone is asked (`--user`); nil asks for a name.
    var user: String? { get }

    /// Whether a person answers: a wrong password is asked for again, a command's question is
    /// asked, and Ctrl-C cancels the line being typed. A script cannot do any of these: a wrong
    /// password ends it, a question fails its command, and Ctrl-C ends it.
    var isInteractive: Bool { get }

    /// The descriptor the loop watches for input.
    var inputFD: Int32 { get }

    /// Where the session signs on from, for the audit log: a terminal (an SSH login when the
    /// executable says so) or a script. Its `tty` is the terminal a sign-on is recorded on
    /// (`ward user list`).
    var signOnSource: SignOnSource { get }

    /// The earliest moment the front end has something to do (a held escape key, a held redraw).
    var nextDeadline: Instant? { get }

    /// The window's rows and columns, read when it changes size (SIGWINCH) for the plugins'
    /// `.resize`. See the default in the extension.
    var windowSize: (rows: Int, columns: Int) { get }

    /// Called once, when the driver is made: keep `driver` (unowned: it owns the front end) and
    /// register with `lock` everything that holds typed or loaded data.
    func attach(to driver: SessionDriver, wipeList: WipeList)

    /// Before the loop starts: take what the process needs (standard output's buffer, SIGPIPE).
    func open()

    /// On every way out, a thrown error included: give back what `open` took.
    func close()

    /// The input descriptor is readable.
    func inputReadable()

    /// After every wake-up of the loop, before the chain's deadlines fire.
    func wake()

    /// Ask who is there.
    func askUsername()

    /// Ask `user` for the password; `reason` is nil at sign-on, the lock's cause after a lock.
    func askPassword(user: String, lockedBecause reason: LockReason?)

    /// One line from the session (a wrong password, why it ends).
    func say(_ text: String)

    /// A sign-on (or an unlock) was refused for good, and the session ends: say why.
    func cannotSignOn(_ error: AuthError, atLockScreen: Bool)

    /// A plugin's notice (`PluginContext.notice`).
    func notice(_ text: String)

    /// A plugin's warning that the session will lock soon (`PluginContext.warnOfLock`); a
    /// notice unless the front end does more (the terminal's colour and bell).
    func lockWarning(_ text: String)

    /// A plugin asked for the terminal's focus reports, or for them to stop.
    func setFocusReporting(_ on: Bool)

    /// The lock has wiped every holder of data: show that the session is locked.
    func showLockScreen(user: String, reason: LockReason)

    /// Signed on or unlocked, before the shell hears of it: `news` is what sign-on learned
    /// (the previous sign-on, failed attempts) for the user to read first.
    func showShell(news: [String])

    /// The prompt is back, and the chain has heard so: let the user type the next command, or
    /// the answer to the last command's `question` (break the glass: why?).
    func showPrompt(question: String?)

    /// A plugin refused `line` with `message`, before the chain hears of the refusal.
    func refused(_ line: Line, message: String)

    /// `line` is done, the chain has heard what it did; its requests come next.
    func commandFinished(_ line: Line, _ outcome: SessionDriver.LineOutcome)

    /// A signal's event passed the chain and the session goes on: act on it (cancel the line
    /// being typed, redraw for a new window size). `.suspend`: Ctrl-Z passed the chain and the
    /// process stops next; hand back what the stop must not keep. `.resume`: the process was
    /// continued (`fg`) and the chain has heard for how long it was away; its requests come next.
    func received(_ event: Lifecycle)

    /// `signal` ends the session: say so, where it stopped.
    func stopping(by signal: UnixSignal)

    /// The session has ended and every plugin is removed: the last words before the exit.
    func ended(_ reason: SignOffReason, status: ExitStatus)

    /// The session is about to announce its sign-off; see the default in the extension.
    func signingOff(_ reason: SignOffReason)

    /// Shows the site's use notice (already sanitized) before anyone is asked who they are;
    /// false when it could not be shown. See the default in the extension.
    func showBanner(_ text: String) -> Bool
}

extension SessionFrontEnd {
    /// The session is about to announce its sign-off to the chain: the last moment a front end
    /// can tell the chain of what it ends with it (`ExecFrontEnd`: the program it ran). Nothing
    /// by default.
    public func signingOff(_ reason: SignOffReason) {}

    /// Says why, as one line: the terminal front ends' way. A script's says where it stopped.
    public func cannotSignOn(_ error: AuthError, atLockScreen: Bool) { say("ward: \(error)") }

    /// The size of the terminal the input comes from (both terminal front ends read theirs):
    /// 24×80 when it does not say, or the input is no terminal.
    public var windowSize: (rows: Int, columns: Int) { Terminal.size(of: inputFD) }

    /// `.resize` with the window's size as it is now.
    var resized: Lifecycle {
        let size = windowSize
        return .resize(rows: size.rows, columns: size.columns)
    }

    /// A notice: only the terminal colours a warning or rings for it.
    public func lockWarning(_ text: String) { notice(text) }

    /// A script has nobody to read a notice: nothing is shown, and the sign-on goes on. The
    /// front ends a person types at (the shell, `ward exec`) show it on the terminal.
    public func showBanner(_ text: String) -> Bool { true }
}
