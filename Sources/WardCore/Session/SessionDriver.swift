import Glibc
import Logging

/// The session, in every mode: sign-on, the chain, the shell, the lock and the ending, on one
/// loop.
///
/// ```
/// input     ─► front end (TerminalFrontEnd, ExecFrontEnd, BatchFrontEnd) ─► send / submit ─► chain ─► shell
/// signals   ─► SignalSource ─► signalTable ─► .lifecycle ─► chain ─► this driver (stop, end)
/// deadline  ─► chain.fireDueTimers ─► the plugin that asked ─► requests (lock, notice)
/// ```
///
/// Who may type what is `SessionMachine`'s decision; the driver performs its actions, asking
/// its front end to show them (a prompt, the lock screen). Every event passes the chain through
/// one call, `InterceptorChain.send`, and the requests it returns are performed here, in order,
/// after the event has been acted on: a lock asked for on a key press takes effect before the
/// next key reaches readline. The driver owns the session's state (`SessionInfo`); the plugins'
/// contexts read it.
///
/// Every signal passes the chain as a lifecycle event, in every mode, through `signalTable`:
/// a terminal hung up or sent SIGTERM leaves the audit log its `signal` record and a sign-off.
///
/// - Important: Not `Sendable`. It owns the loop and runs on the thread that calls `run()`.
public final class SessionDriver {
    /// How one signal reaches the session: the event it passes the chain as, and how the session
    /// ends after it, if it does.
    public struct SignalRoute: Sendable {
        public let signal: UnixSignal
        public let event: Lifecycle
        /// The sign-off that follows the event, nil when the session goes on.
        public let signOff: SignOffReason?
        public let status: ExitStatus
        /// Ctrl-C ends a script; where a person types, it cancels the line instead.
        public let endsOnlyAScript: Bool

        init(
            _ signal: UnixSignal,
            _ event: Lifecycle,
            signOff: SignOffReason? = nil,
            status: ExitStatus = .success,
            endsOnlyAScript: Bool = false
        ) {
            self.signal = signal
            self.event = event
            self.signOff = signOff
            self.status = status
            self.endsOnlyAScript = endsOnlyAScript
        }
    }

    /// Every signal the session handles, in both modes. SIGQUIT is Ctrl-C's twin, so it never
    /// dumps core with patient data in it. SIGCONT's time away is measured when the stop was ours.
    public static let signalTable: [SignalRoute] = [
        SignalRoute(.sigint, .interrupt, signOff: .interrupt, status: .killed(by: SIGINT), endsOnlyAScript: true),
        SignalRoute(.sigquit, .interrupt, signOff: .interrupt, status: .killed(by: SIGINT), endsOnlyAScript: true),
        SignalRoute(.sigtstp, .suspend),
        SignalRoute(.sigcont, .resume(away: .zero)),
        SignalRoute(.sighup, .hangup, signOff: .hangup, status: .killed(by: SIGHUP)),
        SignalRoute(.sigterm, .terminate, signOff: .terminate, status: .killed(by: SIGTERM)),
        SignalRoute(.sigwinch, .resize(rows: 0, columns: 0)),  // measured when it comes (`handle`)
    ]

    /// What became of one line.
    public enum LineOutcome: Equatable, Sendable {
        /// It passed the chain and ran, with this result.
        case ran(CommandResult)
        /// A plugin swallowed it; nothing ran, and nothing failed.
        case consumed
        /// A plugin refused it, with this message; the shell never saw it.
        case refused(String)
    }

    /// Why a line that comes while the session is locked again is not run.
    static let lockedAgain = "not run: the session locked again as it signed on."

    let clock: any WardClock
    let runner: any CommandRunner
    let logger: Logger
    private let frontEnd: any SessionFrontEnd
    private let chain: InterceptorChain
    private let credentials: any UserDirectory
    private let loop: EventLoop
    private let wipeList = WipeList()
    /// The charts (the runner's context) a lock closes, sealed until the unlock; nil: never kept.
    private let resume: SessionResume?
    private let makeSignals: ([UnixSignal]) throws -> any SignalSource
    private var signals: (any SignalSource)?
    private var machine: SessionMachine
    /// Who is signed on, as the plugins read it. Only the driver changes it.
    private var info: SessionInfo
    private var exitStatus = ExitStatus.success
    /// Set while our own stop's SIGCONT byte is still in the pipe.
    private var resumedFromOwnStop = false
    /// What sign-on learned, shown once the shell starts.
    private var signOnNews: [String] = []
    /// The list of live sessions where this one keeps its entry (the home's, or the site's);
    /// nil keeps none.
    private let registry: (any SessionDirectory)?
    /// This session's entry while someone is signed on.
    private var entry: SessionEntry?
    /// The site's use notice, shown before the first prompt (`[session] banner`).
    private let banner: String?

    /// - Parameters:
    ///   - resume: Brings the runner's context back after an unlock (`[session] resume`); nil
    ///     where there is none to bring back (`ward exec`).
    ///   - signals: Installs the handlers for the table's signals; by default the process's own
    ///     `SignalPipe`. Tests give a pipe of their own.
    ///   - registry: Where the session lists itself while signed on (`ward sessions`) and whence
    ///     `ward lock` asks it to lock: SIGUSR1, or the directory's `requestDescriptor`.
    ///   - banner: The site's use notice: shown before anyone is asked who they are; a front
    ///     end that cannot show it ends the session there (`BannerError`).
    public init(
        frontEnd: any SessionFrontEnd,
        clock: any WardClock,
        chain: InterceptorChain,
        runner: any CommandRunner,
        credentials: any UserDirectory,
        policy: SessionMachine.Policy,
        logger: Logger,
        resume: SessionResume? = nil,
        signals: @escaping ([UnixSignal]) throws -> any SignalSource = { try SignalPipe(signals: $0) },
        registry: (any SessionDirectory)? = nil,
        banner: String? = nil
    ) {
        self.registry = registry
        self.banner = banner
        self.frontEnd = frontEnd
        self.clock = clock
        self.chain = chain
        self.runner = runner
        self.credentials = credentials
        self.logger = logger
        self.makeSignals = signals
        self.resume = resume
        self.loop = EventLoop(clock: clock)
        self.machine = SessionMachine(policy: policy, clock: clock)
        self.info = chain.session
        self.info.signOnSource = frontEnd.signOnSource
        chain.readsSession { [unowned self] in self.info }
        wipeList.register(runner, as: "shell")
        frontEnd.attach(to: self, wipeList: wipeList)
        runner.placeOutputBarrier { [unowned self] in self.sendNotedEvents() }
    }

    /// Runs the session until it ends; returns how the process should exit. The front end gives
    /// back what it took (the terminal's settings) on every way out, a thrown error included.
    public func run() throws -> ExitStatus {
        // A script has no window: a resize would only interrupt its writes.
        let handled = Self.signalTable.filter { frontEnd.isInteractive || $0.signal != .sigwinch }
        // SIGUSR1 is `ward lock`'s request; it is not in the table because it is no lifecycle
        // event: the lock it becomes passes the chain.
        let signals = try makeSignals(handled.map(\.signal) + [.sigusr1])
        self.signals = signals
        frontEnd.open()
        defer {
            unregister()
            signals.close()
            frontEnd.close()
        }
        if let banner, !frontEnd.showBanner(Sanitizer.text(banner)) { throw BannerError.notShown(errno: errno) }
        loop.watch(signals.readEnd) { [unowned self] in self.handleSignals() }
        loop.watch(frontEnd.inputFD) { [unowned self] in self.frontEnd.inputReadable() }
        if let requests = registry?.requestDescriptor {
            loop.watch(requests) { [unowned self] in self.requestsArrived() }
        }
        loop.nextDeadline = { [unowned self] in
            chain.nextDeadline.earliest(frontEnd.nextDeadline).earliest(machine.nextDeadline)
        }
        loop.onWake = { [unowned self] in self.wake() }

        perform(machine.start(user: frontEnd.user))
        if !hasEnded { loop.run() }
        return exitStatus
    }

    // MARK: For the front ends

    /// The session has ended: nothing more is performed, and the loop stops.
    package private(set) var hasEnded = false

    /// Signed on and not locked: the shell has the input.
    package var isSignedOn: Bool {
        if case .signedOn = machine.state { true } else { false }
    }

    package var isLocked: Bool {
        if case .locked = machine.state { true } else { false }
    }

    /// Who asked for the current lock with `ward lock`, for the lock screen; nil for any other lock.
    package var lockRequestedBy: String? { info.lockRequestedBy }

    /// Watches `fd` on the session's loop as well as the front end's input (a program's pseudo-
    /// terminal, its process): `onReadable` runs on the loop's thread, like every input.
    package func watch(_ fd: Int32, onReadable: @escaping () -> Void) {
        loop.watch(fd, onReadable: onReadable)
    }

    /// Watches `fd` for room to write, until `unwatchWritable`.
    package func watchWritable(_ fd: Int32, onWritable: @escaping () -> Void) {
        loop.watchWritable(fd, onWritable: onWritable)
    }

    package func unwatchWritable(_ fd: Int32) { loop.unwatchWritable(fd) }

    package func unwatch(_ fd: Int32) { loop.unwatch(fd) }

    /// The holders of data a lock wipes, in order.
    package var wipeOrder: [String] { wipeList.names }

    /// Sends `event` through the chain, performs what the plugins asked for, and returns where
    /// the event ended up.
    @discardableResult
    package func send(_ event: Event) -> InterceptorChain.Outcome {
        let sent = chain.send(event)
        perform(sent.requests)
        return sent.outcome
    }

    /// One line's whole way: the chain, the command, what the chain must hear of it (an
    /// abandoned command, the shell's session events), the front end's report, then the
    /// requests the plugins made on the way, in order. What follows the line (the next prompt, a
    /// lock, the end) is `proceed(after:)`'s, once the front end has shown its output.
    ///
    /// The requests wait until the command is reported: a plugin's lock must not wipe the
    /// output of a command before the front end has shown it, nor leave it after. That holds for
    /// the requests made while the command ran, at its output barrier (`sendNotedEvents`), too.
    ///
    /// A line longer than `Line.maximumLength` is refused here, before the chain sees it, for
    /// every front end: the chain hears one denial (`refuseLongLine`).
    package func submit(_ line: Line) -> LineOutcome {
        guard line.text.utf8.count <= Line.maximumLength else {
            frontEnd.refused(line, message: Line.tooLongMessage)
            refuseLongLine(startingWith: line.text, source: line.source)
            frontEnd.commandFinished(line, .refused(Line.tooLongMessage))
            return .refused(Line.tooLongMessage)
        }
        // Signed on again, and a safeguard (an audit log that cannot be written) locked at
        // once: the line is not run, and counts as a failure like any refused line.
        let sent = isSignedOn ? chain.send(.line(line)) : ChainResult(outcome: .denied(Self.lockedAgain, by: nil))
        var requests = sent.requests
        let outcome: LineOutcome
        switch sent.outcome {
        case .delivered(.line(let passed)):
            let run = CommandInterruption.run { runner.run(passed) }
            if let signal = run.abandonedBy {
                requests += chain.send(.session(.abandoned(passed, because: signal))).requests
            }
            // Nobody is there to answer a question: the command fails, saying how to do without.
            if case .ask = run.result, !frontEnd.isInteractive {
                outcome = .ran(runner.answer(nil))
            } else {
                outcome = .ran(run.result)
            }
        case .delivered, .consumed:
            outcome = .consumed
        case .denied(let message, let plugin):
            frontEnd.refused(line, message: message)
            requests += chain.send(.session(.denied(line, message: message, by: plugin))).requests
            outcome = .refused(message)
        }
        requests += commandDone()
        frontEnd.commandFinished(line, outcome)
        perform(requests)
        return outcome
    }

    /// A line longer than `Line.maximumLength`, found by the driver or by a front end before it
    /// was whole (a key that would grow it past the limit, a paste, a script's line): the chain
    /// hears one denial, so the audit log records every such refusal alike. Only the line's first
    /// word goes with it (`start`): the rest may be anything, and is never kept.
    package func refuseLongLine(startingWith start: String, source: Line.Source) {
        let first = start.utf8.prefix(64).split(whereSeparator: { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") })
        let word = first.first.map { String(decoding: $0, as: UTF8.self) } ?? "?"
        send(.session(.denied(Line(word, source: source), message: Line.tooLongMessage, by: nil)))
    }

    /// What follows a command, as its result says: the sign-off or the lock it asked for, else
    /// the next prompt, with the command's question when it asked one. `signOffStatus` is what a
    /// sign-off the command asked for ends with (a script's depends on its earlier failures).
    package func proceed(after result: CommandResult, signOffStatus: ExitStatus = .success) {
        switch result {
        case .signOff: signOff(.user, status: signOffStatus)
        case .lock: lock(.user)
        case .ask(let question), .readsText(let question): showPrompt(question: question)
        case .succeeded, .failed, .missingContext: showPrompt()
        }
    }

    /// As `proceed(after:)` for a command that ran; a consumed or refused line leaves the prompt.
    package func proceed(after outcome: LineOutcome, signOffStatus: ExitStatus = .success) {
        guard case .ran(let result) = outcome else { return showPrompt() }
        proceed(after: result, signOffStatus: signOffStatus)
    }

    /// The answer to the question the last command asked: not a command, so not a `.line`; what
    /// it leads to (breaking the glass) is announced.
    package func answer(_ text: String?) -> CommandResult {
        let result = runner.answer(text)
        perform(commandDone())
        return result
    }

    /// After a command: what it noted and was not yet sent at its output barrier, then every
    /// request the plugins made for the command's events, to be performed once it is reported.
    private func commandDone() -> [ChainRequest] {
        _ = sendNotedEvents()
        defer { heldRequests = [] }
        return heldRequests
    }

    /// The requests the plugins made while a command ran (at its output barrier), held until
    /// it is reported.
    private var heldRequests: [ChainRequest] = []

    /// The output barrier (`CommandRunner.placeOutputBarrier`), and a command's end: the plugins
    /// hear what the runner noted so far (`RecordAccess`); several accesses in a row as one
    /// `.accessedTogether`, which the audit log writes as one group with one sync. Their
    /// requests are held (`heldRequests`); returns the first refusal, nil when all passed.
    private func sendNotedEvents() -> String? {
        var refusal: String?
        var accesses: [RecordAccess] = []
        func send(_ event: SessionEvent) {
            let sent = chain.send(.session(event))
            heldRequests += sent.requests
            if case .denied(let message, _) = sent.outcome, refusal == nil { refusal = message }
        }
        func sendAccesses() {
            switch accesses.count {
            case 0: return
            case 1: send(.accessed(accesses[0]))
            default: send(.accessedTogether(accesses))
            }
            accesses.removeAll()
        }
        for event in runner.takeSessionEvents() {
            if case .accessed(let access) = event {
                accesses.append(access)
                continue
            }
            sendAccesses()
            send(event)
        }
        sendAccesses()
        return refusal
    }

    /// The prompt is back: the chain hears it (the idle timer counts from here), then the front
    /// end shows it, unless a plugin locked or ended the session meanwhile.
    package func showPrompt(question: String? = nil) {
        guard isSignedOn else { return }
        send(.session(.promptReady))
        guard isSignedOn else { return }
        frontEnd.showPrompt(question: question)
    }

    package func usernameEntered(_ name: String) {
        perform(machine.usernameEntered(name))
    }

    /// Checks the password `read` gives for the user being asked, and signs on, unlocks, or
    /// says why not. `accepted` runs once the password is right, before the shell hears of it.
    ///
    /// The typed password goes to the credential store's `signOn` or `unlock` and nowhere else;
    /// the store has the site's source check it (Ward's hashes, or PAM) and counts the failures.
    /// What the source said (PAM's messages) is shown as text after the check. An account PAM's
    /// account stage refused ends the session (77) like a locked one; PAM unable to check at all
    /// ends it with 69.
    ///
    /// Where nobody can type again (a script), a wrong password ends the session (77); at a
    /// terminal the machine waits, then asks again. An account locked by failed attempts is
    /// refused before the password is checked: the session ends (77), audited as a failed
    /// sign-on; retrying could not succeed before the lock runs out. At the lock screen it is
    /// audited as a failed unlock, and so is every wrong password there.
    ///
    /// A wrong password for a name nobody has is announced without the name: it is often a
    /// password typed into the name field.
    package func checkPassword(_ read: () throws(AuthError) -> Password, accepted: () -> Void = {}) {
        let user: String
        let atLockScreen: Bool
        switch machine.state {
        case .signingOn(let name?): (user, atLockScreen) = (name, false)
        case .locked(let name, _, _, _): (user, atLockScreen) = (name, true)
        default: return
        }
        // What the authenticator said (PAM's messages): shown after the check, sanitized by the
        // front end, with the shell's news on success and before the refusal otherwise.
        var messages: [String] = []
        do throws(AuthError) {
            let password = try read()
            let tty = info.signOnSource?.tty
            let role: Role
            if atLockScreen {
                role = try credentials.unlock(name: user, password: password, tty: tty, messages: &messages).role
                signOnNews = messages
                resume?.unlocked(password: password)
            } else {
                let summary = try credentials.signOn(name: user, password: password, tty: tty, messages: &messages)
                signOnNews = messages + summary.lines
                role = summary.role
                resume?.signedOn(user: user, role: role, password: password)
            }
            accepted()
            perform(machine.passwordChecked(role: role))
        } catch .wrongCredentials where frontEnd.isInteractive || !atLockScreen {
            for message in messages { frontEnd.say(message) }
            let refusal: SignOnFailure = atLockScreen || userExists(user) ? .wrongPassword : .unknownUser
            perform(machine.passwordChecked(role: nil, refusal: refusal))
            if !frontEnd.isInteractive {
                perform(machine.signOff(.failedAttempts, status: .authenticationFailed))
            }
        } catch {
            if case .wrongCredentials = error { for message in messages { frontEnd.say(message) } }
            frontEnd.cannotSignOn(error, atLockScreen: atLockScreen)
            let refusal: SignOnFailure? =
                switch error {
                case .accountLocked: .accountLocked
                case .accountDisabled: .accountDisabled
                case .accountRefused: .accountRefused
                case .wrongCredentials: .wrongPassword  // a script's password, at the lock screen
                default: nil
                }
            if let refusal {
                // An unknown name locks too (`UnknownNameCounts`); it is never announced, as it
                // may be a password typed into the name field.
                announce(
                    atLockScreen
                        ? .unlockFailed(user: user, reason: refusal)
                        : .signOnFailed(user: userExists(user) ? user : nil, reason: refusal)
                )
            }
            perform(machine.signOff(.failedAttempts, status: error.exitStatus))
        }
    }

    /// Whether the store has a user named `name`. A store that cannot be read says no: the name
    /// is then not announced, which errs on the side of a password typed as a name.
    private func userExists(_ name: String) -> Bool {
        (try? credentials.user(named: name)) != nil
    }

    package func lock(_ reason: LockReason) {
        perform(machine.lock(reason))
    }

    package func signOff(_ reason: SignOffReason, status: ExitStatus = .success) {
        perform(machine.signOff(reason, status: status))
    }

    /// Handles the signals and deadlines that came while a command ran (a batch calls this
    /// between lines, so a SIGTERM stops the script before the next line).
    package func catchUp() {
        handleSignals()
        if !hasEnded, let due = loop.nextDeadline(), clock.now >= due { wake() }
    }

    // MARK: Performing

    private func wake() {
        guard !hasEnded else { return }
        frontEnd.wake()
        perform(chain.fireDueTimers())
        if let due = machine.nextDeadline, clock.now >= due { perform(machine.deadlinePassed()) }
    }

    private func perform(_ actions: [SessionMachine.Action]) {
        for action in actions {
            guard !hasEnded else { return }
            switch action {
            case .askUsername:
                frontEnd.askUsername()
            case .askPassword(let user, let reason):
                frontEnd.askPassword(user: user, lockedBecause: reason)
            case .announce(let event):
                announce(event)
            case .wipe(let user, let reason):
                if let resume {
                    var context = runner.resumableContext()
                    resume.lock(sealing: &context)
                }
                wipeList.wipeAll()
                frontEnd.showLockScreen(user: user, reason: reason)
                register(.locked)  // only now: `ward lock` takes "locked" to mean wiped
                logger.info("session locked", metadata: ["lock.reason": "\(reason)"])
            case .say(let text):
                frontEnd.say(text)
            case .resumeShell:
                guard case .signedOn(let user, let role) = machine.state else { break }
                frontEnd.showShell(news: signOnNews)
                signOnNews = []
                runner.signedOn(user: user, role: role)
                bringBack()
                showPrompt()
            case .end(let reason, let status):
                resume?.forget()
                finish(reason, status: status)
            }
        }
    }

    /// After an unlock, what the lock sealed goes back to the runner, which reopens it as its
    /// commands would; the chain hears each access as after a command (the audit log records
    /// the reopening). A seal that did not open is forgotten, and the runner tells the user.
    private func bringBack() {
        guard let resume else { return }
        switch resume.open() {
        case .nothing:
            break
        case .context(var context):
            runner.resume(from: context)
            Password.zeroize(&context)
            perform(commandDone())
        case .unreadable:
            runner.resume(from: nil)
        }
    }

    /// Tells the chain that the session changed, with `info` brought up to date first, so the
    /// audit log's record of a sign-on already names the user. After a sign-off nobody is
    /// signed on.
    private func announce(_ event: SessionEvent) {
        switch event {
        case .signedOn(let user, let role):
            info.user = user
            info.role = role
            info.isLocked = false
            register(.signedOn)
        case .locked(let reason):
            info.isLocked = true
            if reason != .request { info.lockRequestedBy = nil }
        case .unlocked:
            info.isLocked = false
            info.lockRequestedBy = nil
            register(.signedOn)
        case .signedOff(let reason):
            unregister()
            frontEnd.signingOff(reason)
            guard !hasEnded else { return }
        case .signOnFailed, .unlockFailed, .denied, .abandoned, .accessed, .accessedTogether, .promptReady,
            .programStarted, .programExited, .programExecDenied, .auditRead:
            break
        }
        let sent = chain.send(.session(event))
        if case .signedOff = event {
            info.user = nil
            info.role = nil
        }
        perform(sent.requests)
    }

    private func perform(_ requests: [ChainRequest]) {
        for request in requests {
            guard !hasEnded else { return }
            switch request {
            case .notice(let text): frontEnd.notice(text)
            case .lockWarning(let text): frontEnd.lockWarning(text)
            case .lock(let reason): lock(reason)
            case .signOff(let reason): signOff(reason)
            case .focusReporting(let on): frontEnd.setFocusReporting(on)
            }
        }
    }

    // MARK: Signals

    /// Reads the signals that arrived and passes each through the chain, by `signalTable`.
    package func handleSignals() {
        guard let signals else { return }
        for signal in signals.drain() {
            guard !hasEnded else { return }
            handle(signal)
        }
    }

    /// The terminal is gone (EOF or EIO on it): the SIGHUP that comes with a closed terminal,
    /// handled as soon as the front end sees it, so the chain hears the hangup either way.
    package func terminalClosed() {
        handle(.sighup)
    }

    private func handle(_ signal: UnixSignal) {
        if signal == .sigusr1 { return lockRequested() }
        guard !hasEnded, let route = Self.signalTable.first(where: { $0.signal == signal }) else { return }
        switch route.event {
        case .suspend:
            suspend()
        case .resume where resumedFromOwnStop:
            resumedFromOwnStop = false
        case .resume:
            // A stop that was not ours (kill -STOP): take the terminal back as it was.
            resume(away: .zero)
        default:
            let event = signal == .sigwinch ? frontEnd.resized : route.event
            let outcome = send(.lifecycle(event))
            guard !hasEnded else { return }
            if let reason = route.signOff, !(route.endsOnlyAScript && frontEnd.isInteractive) {
                frontEnd.stopping(by: signal)
                signOff(reason, status: route.status)
            } else if case .delivered = outcome {
                frontEnd.received(event)
            }
        }
    }

    /// Ctrl-Z: the chain hears of it first (a plugin may lock, which wipes before the stop),
    /// then the front end hands back what the stop must not keep, and the process stops until
    /// `fg`.
    private func suspend() {
        send(.lifecycle(.suspend))
        guard !hasEnded, let signals else { return }
        frontEnd.received(.suspend)
        let stoppedAt = clock.now
        signals.stopUntilContinued()
        resumedFromOwnStop = true  // this resume stands for the SIGCONT byte now in the pipe
        resume(away: clock.now - stoppedAt)
    }

    /// The front end takes the terminal back before the requests (a lock) are performed.
    private func resume(away: Duration) {
        let sent = chain.send(.lifecycle(.resume(away: away)))
        frontEnd.received(.resume(away: away))
        perform(sent.requests)
    }

    // MARK: The registry

    /// `ward lock` asked (SIGUSR1): an ordinary lock, through the machine and the chain, whose
    /// reason names who asked. A signal with no request behind it (sent by hand) locks too: the
    /// safe reading of a request Ward cannot read. `ward user remove|disable` asks a sign-off
    /// instead: the session ends (77), signed on or locked, and its audit log says `revoked`.
    private func lockRequested() {
        guard !hasEnded else { return }
        act(on: registry?.takeRequest(id: info.id))
    }

    /// The directory's descriptor is readable: each request it holds for this session, as
    /// SIGUSR1's. Unlike a signal, a wake-up without a request asks nothing (the directory may
    /// have had its own business: a connection to list the session on again).
    private func requestsArrived() {
        while !hasEnded, let request = registry?.takeRequest(id: info.id) { act(on: request) }
    }

    /// Locks, or signs off, as `request` asks; nil locks.
    private func act(on request: SessionRegistry.Request?) {
        if request?.action == .signOff {
            frontEnd.notice("\(request?.by ?? "An administrator") removed or disabled this account; signing off.")
            return signOff(.revoked, status: .authenticationFailed)
        }
        guard isSignedOn else { return }
        info.lockRequestedBy = request?.by ?? "a signal"
        lock(.request)
    }

    /// Writes this session's entry in the registry with `state` (at sign-on, after each lock's
    /// wipe, and at each unlock). A registry that cannot be written is logged and the session
    /// goes on: the entry serves `ward lock`, and the session's own guards do not depend on it.
    private func register(_ state: SessionEntry.State) {
        guard let registry, let user = info.user, let role = info.role else { return }
        var entry =
            self.entry
            ?? SessionEntry(
                id: info.id,
                pid: getpid(),
                processStart: ProcessStartTime.current,
                uid: getuid(),
                user: user,
                role: role.rawValue,
                tty: info.signOnSource?.tty,
                peer: { if case .ssh(let peer, _, _) = info.signOnSource { peer } else { nil } }(),
                started: SessionEntry.utcNow(),
                state: state
            )
        entry.state = state
        self.entry = entry
        do {
            try registry.write(entry)
        } catch {
            logger.warning("session not registered", metadata: ["registry.error": "\(error)"])
        }
    }

    /// Removes the entry: the session ended (or its process is about to).
    private func unregister() {
        guard let registry, entry != nil else { return }
        registry.remove(id: info.id)
        entry = nil
    }

    // MARK: Ending

    /// Removes every plugin, lets the front end say its last words, and stops the loop. A
    /// second call (a SIGTERM during the first) does nothing. Memory needs no wipe here: the
    /// process exits.
    private func finish(_ reason: SignOffReason, status: ExitStatus) {
        guard !hasEnded else { return }
        hasEnded = true
        unregister()
        exitStatus = status
        chain.removeAll(status: status)
        frontEnd.ended(reason, status: status)
        loop.stop()
    }
}

@available(*, unavailable)
extension SessionDriver: Sendable {}
