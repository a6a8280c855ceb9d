import Glibc
import Logging

/// A script's session: the same chain, audit and lock rules as a person at the terminal, with
/// lines from a file or a pipe in place of keys.
///
/// ```
/// script lines ─► BatchInput ─► .line(source batch:FILE:LINE) ─► chain ─► shell ─► BatchReporter
/// signals      ─► SignalPipe ─► .lifecycle ─► chain ─► this session (finish the command, end)
/// deadline     ─► chain.fireDueTimers ─► the idle timer ─► lock ─► wipe
/// ```
///
/// Sign-on and the lock are `SessionMachine`'s, as for a person; only the password's source
/// differs. A pipe that stalls past the idle timeout locks the session and wipes what it loaded.
/// The next line then signs on again from the password file before it runs; a password that
/// came from a descriptor cannot be read again, so the batch ends with 75 (EX_TEMPFAIL) and says
/// which line it stopped after.
///
/// Signals are handled between commands. SIGTERM and SIGHUP also wake `TerminationWatchdog`,
/// which interrupts a command that waits on the store or a plugin, so the batch ends within a
/// second: the audit log holds the line's record, then `abandoned`, the signal and the sign-off.
/// A line longer than `Line.maximumLength` stops the batch with 65 (EX_DATAERR) before it runs.
///
/// - Important: Not `Sendable`. It owns the loop and runs on the thread that calls `run()`.
public final class BatchSession {
    /// What a failing command does to the rest of the script.
    public enum OnError: String, CaseIterable, Sendable {
        /// End at the first failure, with status 1 (psql's `ON_ERROR_STOP`).
        case stop
        /// Run every line; the status is 1 if any failed.
        case `continue`
    }

    /// What `ward --batch` was given.
    public struct Options: Sendable {
        /// The script as messages and the audit log name it: its path, or `<stdin>`.
        public var scriptName: String
        public var user: String
        public var password: PasswordSource
        public var onError: OnError

        public init(scriptName: String, user: String, password: PasswordSource, onError: OnError = .stop) {
            self.scriptName = scriptName
            self.user = user
            self.password = password
            self.onError = onError
        }
    }

    /// How `scriptName` reads when the script is standard input.
    public static let standardInputName = "<stdin>"

    private let options: Options
    private let clock: any WardClock
    private let chain: InterceptorChain
    private let runner: any CommandRunner
    private let credentials: CredentialStore
    private let reporter: any BatchReporter
    private let logger: Logger
    private let loop: EventLoop
    private let output: StdoutBuffer?
    private var input: BatchInput
    private var machine: SessionMachine
    private var signals: SignalPipe?
    private var exitStatus: Int32 = 0
    private var ended = false
    private var failures = 0
    /// Set while our own stop's SIGCONT byte is still in the pipe.
    private var resumedFromOwnStop = false
    /// The last line that ran, for messages that say where the batch stopped.
    private var lastLine: Line.Source?

    private let ownsProcess: Bool

    /// `ownsProcess: false` leaves the process's signal handlers and standard output's buffer
    /// alone, for tests, which share one process (there is one signal pipe per process).
    public init(
        input fd: Int32,
        options: Options,
        clock: any WardClock,
        chain: InterceptorChain,
        runner: any CommandRunner,
        credentials: CredentialStore,
        policy: SessionMachine.Policy,
        reporter: any BatchReporter,
        logger: Logger,
        ownsProcess: Bool = true
    ) {
        self.ownsProcess = ownsProcess
        self.input = BatchInput(fd: fd)
        self.options = options
        self.clock = clock
        self.chain = chain
        self.runner = runner
        self.credentials = credentials
        self.reporter = reporter
        self.logger = logger
        self.loop = EventLoop(clock: clock)
        self.output = ownsProcess ? StdoutBuffer(size: 65_536, lineBuffered: false) : nil
        self.machine = SessionMachine(policy: policy, clock: clock)
    }

    /// Runs the script to its end (or until the session ends); returns the exit status.
    public func run() throws -> Int32 {
        if ownsProcess {
            let signals = try SignalPipe(signals: [.sigint, .sigquit, .sigtstp, .sigcont, .sighup, .sigterm])
            self.signals = signals
            loop.watch(signals.readEnd) { [unowned self] in self.handleSignals() }
            // A reader that went away (`ward --batch x | head`) is seen as a failed flush, and
            // the session ends through the chain instead of dying with nothing in the audit log.
            signal(SIGPIPE, SIG_IGN)
        }
        defer {
            signals?.close()
            if ownsProcess { signal(SIGPIPE, SIG_DFL) }
        }
        loop.watch(input.fd) { [unowned self] in self.inputReadable() }
        loop.nextDeadline = { [unowned self] in
            [chain.nextDeadline, machine.nextDeadline].compactMap { $0 }.min()
        }
        loop.onWake = { [unowned self] in self.wake() }

        perform(machine.start(user: options.user))
        if !ended { loop.run() }
        return exitStatus
    }

    // MARK: Input

    private func inputReadable() {
        switch input.fill() {
        case .data, .endOfInput:
            break
        case .failed(let code):
            reporter.notice("cannot read \(options.scriptName): \(String(cString: strerror(code))).")
            return perform(machine.signOff(.hangup, status: 74))
        }
        while !ended {
            let next: BatchInput.ScriptLine?
            do {
                next = try input.nextLine()
            } catch {
                reporter.notice("\(options.scriptName):\(error.number): \(error) The script stopped there.")
                return perform(machine.signOff(.lineTooLong, status: 65))
            }
            guard let line = next else { break }
            run(Line(line.text, source: .batch(file: options.scriptName, line: line.number)))
            handleSignals()
            if !ended, let due = loop.nextDeadline(), clock.now >= due { wake() }
        }
        if !ended, input.isFinished {
            perform(machine.signOff(.endOfInput, status: failures > 0 ? 1 : 0))
        }
    }

    private func run(_ line: Line) {
        if case .locked = machine.state { signOnAgain(before: line) }
        guard !ended else { return }
        lastLine = line.source
        reporter.commandStarted(line)
        let status: BatchStatus
        var result = CommandResult.succeeded
        let outcome: InterceptorChain.Outcome
        if case .signedOn = machine.state {
            outcome = chain.dispatch(.line(line))
        } else {
            // Signed on again, and a safeguard (an audit log that cannot be written) locked at
            // once: the line is not run, and counts as a failure like any refused line.
            outcome = .denied("not run: the session locked again as it signed on.")
        }
        switch outcome {
        case .delivered(.line(let passed)):
            let run = CommandInterruption.run { runner.run(passed) }
            result = run.result
            if let signal = run.abandonedBy { announce(.abandoned(passed, because: signal)) }
            // Nobody is there to answer a question: the command fails, saying how to do without.
            if case .ask = result { result = runner.answer(nil) }
            for event in runner.takeSessionEvents() { announce(event) }
            status = result == .failed ? .failed : .succeeded
        case .delivered, .consumed:
            status = .succeeded
        case .denied(let message):
            announce(.denied(line, message: message))
            status = .denied(message)
        }
        reporter.commandFinished(line, status: status)
        guard output?.flush() ?? true else {
            reporter.notice("standard output was closed after \(line.source.place); stopping.")
            return perform(machine.signOff(.hangup, status: 128 + SIGPIPE))
        }
        performRequests()
        // Ward is ending: the signal, not the failure it caused, says how the batch ends.
        if CommandInterruption.requestedBy != nil { handleSignals() }
        guard !ended else { return }
        if status != .succeeded {
            failures += 1
            if options.onError == .stop {
                return perform(machine.signOff(.commandFailed, status: 1))
            }
        }
        switch result {
        case .signOff: return perform(machine.signOff(.user, status: failures > 0 ? 1 : 0))
        case .lock: perform(machine.lock(.user))
        case .succeeded, .failed, .ask: break
        }
        guard case .signedOn = machine.state else { return }
        announce(.promptReady)
    }

    private func wake() {
        guard !ended else { return }
        chain.fireDueTimers()
        performRequests()
        if let due = machine.nextDeadline, clock.now >= due { perform(machine.deadlinePassed()) }
    }

    // MARK: Signing on

    /// Sign-on at the start: wrong credentials end the batch with 77 before any line runs.
    private func signOn() {
        do throws(AuthError) {
            let password = try options.password.read()
            let summary = try credentials.signOn(name: options.user, password: password, tty: nil)
            perform(machine.passwordChecked(role: summary.role.rawValue))
        } catch .wrongCredentials {
            perform(machine.passwordChecked(role: nil))
            perform(machine.signOff(.failedAttempts, status: AuthError.wrongCredentials.exitStatus.rawValue))
        } catch .accountLocked(let user, let until) {
            // Refused before the password was checked: said once (not also "wrong password"), and
            // audited as a failed sign-on.
            let error = AuthError.accountLocked(user: user, until: until)
            reporter.notice("cannot sign on: \(error)")
            perform([.announce(.signOnFailed(user: options.user))])
            perform(machine.signOff(.failedAttempts, status: error.exitStatus.rawValue))
        } catch {
            reporter.notice("cannot sign on: \(error)")
            perform(machine.signOff(.failedAttempts, status: error.exitStatus.rawValue))
        }
    }

    /// After a lock, before `line` runs: the password file is read again, as a person would type
    /// the password at the lock screen.
    private func signOnAgain(before line: Line) {
        let place = line.source.place
        do throws(AuthError) {
            let password = try options.password.read()
            let record: UserRecord
            do throws(AuthError) {
                record = try credentials.unlock(name: options.user, password: password)
            } catch .wrongCredentials {
                reporter.notice(
                    "the password in \(options.password.name) no longer signs on \(options.user); stopped before \(place)."
                )
                return perform(machine.signOff(.failedAttempts, status: AuthError.wrongCredentials.exitStatus.rawValue))
            }
            reporter.notice("signed on again from \(options.password.name) before \(place).")
            perform(machine.passwordChecked(role: record.role.rawValue))
        } catch {
            reporter.notice("cannot sign on again before \(place): \(error)")
            perform(machine.signOff(.failedAttempts, status: error.exitStatus.rawValue))
        }
    }

    // MARK: Performing

    private func perform(_ actions: [SessionMachine.Action]) {
        for action in actions {
            guard !ended else { return }
            switch action {
            case .askUsername:
                // `--user` is required in batch mode; the machine asks only when it is missing.
                perform(machine.signOff(.failedAttempts, status: 64))
            case .askPassword(_, nil):
                signOn()
            case .askPassword(_, let reason?):
                waitForSignOn(lockedBecause: reason)
            case .announce(let event):
                announce(event)
            case .wipe(_, let reason):
                wipe(reason)
            case .say(let text):
                reporter.notice(text)
            case .resumeShell:
                guard case .signedOn(let user, let role) = machine.state else { break }
                runner.signedOn(user: user, role: role)
                announce(.promptReady)
            case .end(_, let status):
                finish(status: status)
            }
        }
    }

    /// Everything the shell loaded goes, and the bytes still in standard output's buffer.
    /// Lines not yet run stay queued: they run after the next sign-on.
    private func wipe(_ reason: LockReason) {
        runner.wipe()
        output?.wipe()
        reporter.notice("locked (\(reason)) after \(lastLine?.place ?? "sign-on"); what was loaded is wiped.")
        logger.info("batch locked", metadata: ["lock.reason": "\(reason)"])
    }

    /// Locked: a file can be read again when the next line comes; a descriptor cannot.
    private func waitForSignOn(lockedBecause reason: LockReason) {
        guard !options.password.canReadAgain else { return }
        let place = lastLine?.place ?? "sign-on"
        reporter.notice(
            "the password came from \(options.password.name), which cannot be read again; "
                + "stopped after \(place). Use --password-file to sign on again after a lock."
        )
        perform(machine.signOff(.timeout, status: SessionMachine.lockedOutStatus))
    }

    private func announce(_ event: SessionEvent) {
        chain.announce(event)
        performRequests()
    }

    private func performRequests() {
        for request in chain.takeRequests() {
            guard !ended else { return }
            switch request {
            case .notice(let text): reporter.notice(text)
            case .lock(let reason): perform(machine.lock(reason))
            case .signOff(let reason): perform(machine.signOff(reason))
            case .focusReporting: break  // no terminal, no focus
            }
        }
    }

    // MARK: Signals

    /// Reads the signal pipe; called by the loop, and between commands so that a SIGTERM stops
    /// the script before the next line rather than after the whole chunk.
    private func handleSignals() {
        guard let signals else { return }
        for signal in signals.drain() {
            guard !ended else { return }
            switch signal {
            case .sigint, .sigquit:
                interrupted(.interrupt, status: 130, by: signal)
            case .sighup:
                interrupted(.hangup, status: 129, by: signal)
            case .sigterm:
                interrupted(.terminate, status: 143, by: signal)
            case .sigtstp:
                suspend(signals)
            case .sigcont where resumedFromOwnStop:
                resumedFromOwnStop = false
            case .sigcont:
                _ = chain.dispatch(.lifecycle(.resume(away: .zero)))
                performRequests()
            default:
                break
            }
        }
    }

    private func interrupted(_ reason: SignOffReason, status: Int32, by signal: UnixSignal) {
        let lifecycle: Lifecycle = signal == .sighup ? .hangup : signal == .sigterm ? .terminate : .interrupt
        _ = chain.dispatch(.lifecycle(lifecycle))
        performRequests()
        let place = lastLine.map { "after \($0.place)" } ?? "before the first line"
        reporter.notice("\(signal): stopped \(place).")
        perform(machine.signOff(reason, status: status))
    }

    /// Ctrl-Z on the terminal that started the batch: the chain hears of it (the suspend guard
    /// may lock, which wipes before the stop), the process stops, and the chain hears how long.
    private func suspend(_ signals: SignalPipe) {
        _ = chain.dispatch(.lifecycle(.suspend))
        performRequests()
        guard !ended else { return }
        output?.flush()
        let stoppedAt = clock.now
        signals.stopUntilContinued()
        resumedFromOwnStop = true  // this resume stands for the SIGCONT byte now in the pipe
        _ = chain.dispatch(.lifecycle(.resume(away: clock.now - stoppedAt)))
        performRequests()
    }

    // MARK: Ending

    private func finish(status: Int32) {
        guard !ended else { return }
        ended = true
        exitStatus = status
        _ = chain.takeRequests()
        output?.flush()
        chain.removeAll()
        loop.stop()
    }
}

@available(*, unavailable)
extension BatchSession: Sendable {}
