import Glibc

/// The program `ward exec` runs, through a lock and a stop: started, frozen, continued, hung up
/// and killed after a grace, started again after unlocking. `ExecFrontEnd` relays its keys and
/// output; this type decides what happens to the process.
///
/// At a lock the site chooses (`[exec] on-lock`): `freeze` stops it (SIGSTOP) until the unlock;
/// `kill` hangs it up (SIGHUP, continued first if frozen, so that it can hear it), releases its
/// terminal so nothing it prints is kept, and sends SIGKILL once `killGrace` has passed; it
/// starts again after the unlock, and one unlocked within the grace is killed at once first.
///
/// - Important: Not `Sendable`. It runs on the driver's loop thread.
final class ProgramSupervisor {
    let runner: ProgramRunner
    private let killGrace: Duration
    /// A program hung up at a lock gets SIGKILL at this time if it has not ended.
    private(set) var killAt: Instant?
    /// Stopped by Ward (a lock, a Ctrl-Z), so it gets SIGCONT before it is talked to.
    private var isFrozen = false
    /// The program ended for a lock's `kill`: start it again after unlocking.
    private(set) var startsAgain = false

    init(runner: ProgramRunner, killGrace: Duration) {
        self.runner = runner
        self.killGrace = killGrace
    }

    var program: ExecProgram { runner.program }

    /// What the audit log records before the program starts.
    var start: ProgramStart {
        let rules = program.rules
        return ProgramStart(
            path: program.path,
            arguments: rules.recordArguments ? runner.arguments : nil,
            recordsInput: rules.recordInput
        )
    }

    /// Starts the program in a new pseudo-terminal with the user's settings and window size.
    func launch(settings: termios, size: (rows: Int, columns: Int)) throws(SystemError) {
        startsAgain = false
        try runner.start(settings: settings, size: size)
    }

    /// SIGSTOP, once: a lock or Ctrl-Z.
    func freeze() {
        guard runner.isRunning, !isFrozen else { return }
        runner.signal(SIGSTOP)
        isFrozen = true
    }

    /// SIGCONT, when Ward stopped it.
    func thaw() {
        guard isFrozen else { return }
        runner.signal(SIGCONT)
        isFrozen = false
    }

    /// The lock has wiped what Ward holds: the program is frozen or hung up, as the site says.
    func lock(now: Instant) {
        switch program.rules.onLock {
        case .freeze:
            freeze()
        case .kill where runner.isRunning:
            startsAgain = true
            runner.signal(SIGHUP)
            if isFrozen { runner.signal(SIGCONT) }
            isFrozen = false
            runner.releaseTerminal()  // its output is dropped unread, and the slave hung up
            killAt = now + killGrace
        case .kill:
            break
        }
    }

    /// SIGKILL for a program hung up at a lock whose grace has passed.
    func wake(now: Instant) {
        guard let due = killAt, now >= due else { return }
        killAt = nil
        runner.signal(SIGKILL)
    }

    /// Unlocked within a `kill` lock's grace: the program it hung up ends now. Returns its exit,
    /// nil when there was none to end.
    func endHungUp() -> ProgramExit? {
        guard startsAgain, let child = runner.child else { return nil }
        child.signal(SIGKILL, foreground: nil)
        let exit = child.reap(wait: true) ?? .killed(by: SIGKILL)
        runner.forgetChild()
        killAt = nil
        return exit
    }

    /// The program's process has ended: it is reaped and forgotten. Nil when it has not.
    func reap() -> ProgramExit? {
        guard let exit = runner.child?.reap() else { return nil }
        runner.releaseTerminal()
        runner.forgetChild()
        killAt = nil
        isFrozen = false
        return exit
    }

    /// Ends the program, if it runs, within `grace` (SIGHUP, then SIGKILL), and forgets it.
    /// Returns its exit, nil when none was running.
    @discardableResult
    func end(grace: Duration) -> ProgramExit? {
        guard let child = runner.child, child.exit == nil else { return nil }
        let exit = child.end(grace: grace, foreground: runner.terminal?.foregroundGroup)
        runner.releaseTerminal()
        runner.forgetChild()
        return exit
    }
}

@available(*, unavailable)
extension ProgramSupervisor: Sendable {}
