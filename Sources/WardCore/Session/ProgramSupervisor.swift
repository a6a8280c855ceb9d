import Glibc

/// The program `ward exec` runs, and every process it starts, through a lock and a stop:
/// started in its sandbox, frozen, continued, hung up and killed after a grace, started again
/// after unlocking, ended at sign-off. `ExecFrontEnd` relays its keys and output; this type
/// decides what happens to the processes.
///
/// At a lock the site chooses (`[exec] on-lock`): `freeze` stops every process the program
/// started (SIGSTOP to each, `ProgramProcesses`) until the unlock; `kill` hangs them up (SIGHUP,
/// continued first if frozen, so that they can hear it), releases the terminal so nothing they
/// print is kept, and sends SIGKILL once `killGrace` has passed; the program starts again after
/// the unlock, and one unlocked within the grace is killed at once first. At sign-off every one
/// of them ends, a job that left with `setsid` too.
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
    /// The processes of the program last started, kept after it ends: what it left behind is
    /// ended at sign-off.
    private var processes: ProgramProcesses?
    /// Where its exec attempts are answered; nil without the sandbox.
    private(set) var gate: ExecGate?

    init(runner: ProgramRunner, killGrace: Duration) {
        self.runner = runner
        self.killGrace = killGrace
    }

    var program: ExecProgram { runner.program }

    /// What the audit log records before the program starts: the whole command line (a password
    /// in it masked) and the sandbox.
    var start: ProgramStart {
        ProgramStart(
            path: program.path,
            arguments: runner.arguments.map(ArgumentMask.masked),
            recordsInput: program.rules.recordInput,
            sandbox: runner.sandbox.description
        )
    }

    /// Starts the program in a new pseudo-terminal with the user's settings and window size.
    func launch(settings: termios, size: (rows: Int, columns: Int)) throws(SystemError) {
        startsAgain = false
        try runner.start(settings: settings, size: size)
        guard let child = runner.child else { return }
        processes = ProgramProcesses(leader: child.pid, sandboxed: runner.sandbox.seccomp)
        gate = child.execListener.map { ExecGate(listener: $0, mayRun: runner.sandbox.mayRun) }
    }

    /// SIGSTOP to every process, once: a lock or Ctrl-Z.
    func freeze() {
        guard runner.isRunning, !isFrozen else { return }
        processes?.stopAll()
        isFrozen = true
    }

    /// SIGCONT to what Ward stopped.
    func thaw() {
        guard isFrozen else { return }
        processes?.continueAll()
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
            processes?.signalOthers(SIGHUP)
            isFrozen = false
            runner.releaseTerminal()  // its output is dropped unread, and the slave hung up
            killAt = now + killGrace
        case .kill:
            break
        }
    }

    /// SIGKILL for the processes hung up at a lock whose grace has passed.
    func wake(now: Instant) {
        guard let due = killAt, now >= due else { return }
        killAt = nil
        runner.signal(SIGKILL)
        processes?.signalOthers(SIGKILL)
        processes?.reapLeftBehind()
    }

    /// Unlocked within a `kill` lock's grace: what it hung up ends now. Returns the program's
    /// exit, nil when there was none to end.
    func endHungUp() -> ProgramExit? {
        guard startsAgain, let child = runner.child else { return nil }
        processes?.signalOthers(SIGKILL)
        child.signal(SIGKILL, foreground: nil)
        let exit = child.reap(wait: true) ?? .killed(by: SIGKILL)
        processes?.reapLeftBehind()
        forget()
        killAt = nil
        return exit
    }

    /// The program's process has ended: it is reaped and forgotten (what it started is not:
    /// `end`). Nil when it has not.
    func reap() -> ProgramExit? {
        guard let exit = runner.child?.reap() else { return nil }
        runner.releaseTerminal()
        forget()
        killAt = nil
        isFrozen = false
        return exit
    }

    private func forget() {
        runner.child?.closeExecListener()
        gate = nil
        runner.forgetChild()
    }

    /// Ends the program, if it runs, and every process it started, within about `grace` each
    /// (SIGHUP and SIGTERM, then SIGKILL), and forgets them. Returns the program's exit, nil
    /// when it was not running.
    @discardableResult
    func end(grace: Duration) -> ProgramExit? {
        let child = runner.child.flatMap { $0.exit == nil ? $0 : nil }
        if child != nil {
            runner.signal(SIGHUP)
            runner.signal(SIGCONT)
        }
        processes?.endOthers(grace: grace)
        processes = nil
        isFrozen = false
        guard let child else { return nil }
        let exit = child.end(grace: grace, foreground: runner.terminal?.foregroundGroup)
        runner.releaseTerminal()
        forget()
        return exit
    }
}

@available(*, unavailable)
extension ProgramSupervisor: Sendable {}
