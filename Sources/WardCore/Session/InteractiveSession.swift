import Glibc
import Logging

/// The interactive session: sign-on, the shell, the lock screen, on one terminal and one loop.
///
/// ```
/// tty bytes ─► KeyDecoder ─► .key ─► chain ─► LineEditor (readline) ─► .line ─► chain ─► shell
/// signals   ─► SignalPipe ─► .lifecycle ─► chain ─► this session (cancel, stop, resize, end)
/// deadline  ─► chain.fireDueTimers ─► the plugin that asked ─► requests (lock, notice)
/// ```
///
/// Who may type what is `SessionMachine`'s decision; this class performs its actions: prompts in
/// canonical mode for the user name and password (never readline, which would keep the password),
/// the wipe and the lock screen, the shell's prompt. Every request an interceptor makes is
/// performed here, after the event has passed the whole chain and before the next key reaches
/// readline.
///
/// - Important: Not `Sendable`. It owns the loop and runs on the thread that calls `run()`.
public final class InteractiveSession {
    /// What the terminal's input is for right now.
    private enum Input: Equatable {
        /// Keys for readline and the shell.
        case shell
        case username
        case password(user: String, atLockScreen: Bool)
        /// A wrong password's delay, or the end: input is discarded.
        case discard
    }

    private let terminal: Terminal
    private let clock: any WardClock
    private let chain: InterceptorChain
    private let runner: any CommandRunner
    private let credentials: CredentialStore
    private let user: String?
    private let editor: LineEditor
    private let loop: EventLoop
    private let logger: Logger
    private let prompts: PromptReader
    private var machine: SessionMachine
    private var decoder = KeyDecoder()
    private var signals: SignalPipe?
    private var input = Input.discard
    private var currentPrompt: (text: String, kind: PromptReader.Kind)?
    private var exitStatus: Int32 = 0
    private var ended = false
    /// Set while our own stop's SIGCONT byte is still in the pipe.
    private var resumedFromOwnStop = false
    /// A plugin asked for focus reports; they are on whenever the shell has the terminal.
    private var focusReportsWanted = false
    /// What sign-on learned, shown once the shell starts.
    private var signOnLines: [String] = []
    /// The question the last command asked (break the glass: why?); the next line answers it.
    private var question: String?
    /// Lines typed ahead of a lock and thrown away; the user is told after unlocking.
    private var discardedLines = 0
    /// A typed line went past `Line.maximumLength`: its remaining keys, up to its Enter, are dropped.
    private var discardingLongLine = false
    /// When a long line's held redraw is due (`LineEditor.redrawsAtOnce`), nil when none is held.
    private var redrawDue: Instant?
    private var readBuffer = [UInt8](repeating: 0, count: 4096)

    public init(
        terminal: Terminal,
        clock: any WardClock,
        chain: InterceptorChain,
        runner: any CommandRunner,
        credentials: CredentialStore,
        user: String?,
        policy: SessionMachine.Policy,
        logger: Logger
    ) {
        self.terminal = terminal
        self.clock = clock
        self.chain = chain
        self.runner = runner
        self.credentials = credentials
        self.user = user
        self.logger = logger
        self.editor = LineEditor()
        self.loop = EventLoop(clock: clock)
        self.prompts = PromptReader(terminal: terminal)
        self.machine = SessionMachine(policy: policy, clock: clock)
    }

    /// Runs the session until it ends; returns the exit status. The terminal is restored on
    /// every way out, a thrown error included.
    public func run() throws -> Int32 {
        let signals = try SignalPipe(signals: [
            .sigint, .sigquit, .sigtstp, .sigcont, .sighup, .sigterm, .sigwinch,
        ])
        self.signals = signals
        defer {
            signals.close()
            terminal.restore()
        }
        editor.completer = { [unowned self] word, before in runner.completions(for: word, before: before) }
        editor.onCompletion = { [unowned self] in self.lineCompleted($0) }
        loop.watch(signals.readEnd) { [unowned self] in self.handleSignals() }
        loop.watch(terminal.fd) { [unowned self] in self.terminalReadable() }
        loop.nextDeadline = { [unowned self] in
            [chain.nextDeadline, decoder.pendingDeadline, machine.nextDeadline, redrawDue].compactMap { $0 }.min()
        }
        loop.onWake = { [unowned self] in self.wake() }

        perform(machine.start(user: user))
        if !ended { loop.run() }
        return exitStatus
    }

    // MARK: Input

    private func terminalReadable() {
        switch input {
        case .shell:
            readKeys()
        case .username:
            guard let answer = prompts.readAnswer() else { return perform(machine.signOff(.user)) }
            noteActivity()
            perform(machine.usernameEntered(String(decoding: answer, as: UTF8.self)))
        case .password(let user, let atLockScreen):
            guard var answer = prompts.readAnswer() else {
                Terminal.write("\n")
                return perform(machine.signOff(.user))
            }
            Terminal.write("\n")
            noteActivity()
            input = .discard
            let role = check(user: user, password: &answer, atLockScreen: atLockScreen)
            perform(machine.passwordChecked(role: role))
        case .discard:
            discardedLines += prompts.discardTypeahead()
        }
    }

    /// A key at a prompt is activity the chain may count, never its value.
    private func noteActivity() {
        _ = chain.dispatch(.key(.redacted))
        performRequests()
    }

    /// Checks the password and zeroes it; the user's role when right, nil when wrong.
    private func check(user: String, password bytes: inout [UInt8], atLockScreen: Bool) -> String? {
        let password = Password(bytes: bytes)
        explicit_bzero(&bytes, bytes.count)
        do {
            if atLockScreen {
                return try credentials.unlock(name: user, password: password).role.rawValue
            }
            let summary = try credentials.signOn(name: user, password: password, tty: Self.ttyName)
            signOnLines = summary.lines
            return summary.role.rawValue
        } catch .wrongCredentials {
            return nil
        } catch .accountLocked(let name, let until) {
            // Refused before the password was checked: the session ends (77), audited as a
            // failed sign-on; retrying here could not succeed before the lock runs out.
            let error = AuthError.accountLocked(user: name, until: until)
            Terminal.write("ward: \(error)\n")
            if !atLockScreen { perform([.announce(.signOnFailed(user: user))]) }
            perform(machine.signOff(.failedAttempts, status: error.exitStatus.rawValue))
            return nil
        } catch {
            Terminal.write("ward: " + Sanitizer.text("\(error)") + "\n")
            perform(machine.signOff(.failedAttempts, status: error.exitStatus.rawValue))
            return nil
        }
    }

    private static var ttyName: String? { ttyname(STDIN_FILENO).map { String(cString: $0) } }

    private func readKeys() {
        let n = read(terminal.fd, &readBuffer, readBuffer.count)
        if n < 0, errno == EINTR || errno == EAGAIN { return }
        guard n > 0 else {
            // The terminal is gone (EOF or EIO): as good as a hangup.
            return perform(machine.signOff(.hangup, status: 129))
        }
        let outputs = decoder.decode(readBuffer[0..<n], at: clock.now)
        explicit_bzero(&readBuffer, n)
        var more = pollfd(fd: terminal.fd, events: Int16(POLLIN), revents: 0)
        deliver(outputs, moreComing: poll(&more, 1, 0) > 0)
    }

    /// Hands each key to the chain, then what passed to readline: plain text is queued and taken
    /// in one go at the end (`LineEditor.queueText`), so a burst costs one redraw, not one per
    /// character; any other key acts at once, after the text before it. `moreComing`: the
    /// terminal has more input waiting, so even that one redraw waits for it.
    ///
    /// A line may not grow past `Line.maximumLength`: the key that would pass it is refused
    /// before the chain sees it, the line is dropped with a message, and the rest of it (up to
    /// its Enter) never reaches the chain or readline.
    private func deliver(_ outputs: [KeyDecoder.Output], moreComing: Bool = false) {
        defer { if !ended, input == .shell, !outputs.isEmpty { drainText(moreComing: moreComing) } }
        for (i, output) in outputs.enumerated() {
            guard !ended, input == .shell else {
                // Locked (or ended) by an earlier key or line: the rest was typed ahead. Never run it.
                discardedLines += outputs[i...].reduce(0) { count, output in
                    guard case .key(let key) = output else { return count }
                    return count + key.bytes.filter { $0 == 0x0A || $0 == 0x0D }.count
                }
                return
            }
            switch output {
            case .key(let key):
                let isText = Self.isPlainText(key)
                if discardingLongLine {
                    if !isText, key.bytes.contains(where: { $0 == 0x0A || $0 == 0x0D }) { discardingLongLine = false }
                    continue
                }
                if isText || key.isPaste, editor.pendingLineLength + key.bytes.count > Line.maximumLength {
                    refuseLongLine(restDiscarded: isText)
                    discardingLongLine = isText
                    continue
                }
                let outcome = chain.dispatch(.key(key))
                performRequests()
                guard case .delivered(.key(let passed)) = outcome, input == .shell else { continue }
                if Self.isPlainText(passed) {
                    editor.queueText(passed.bytes)
                } else {
                    editor.feed(passed.bytes)
                }
            case .focus(let focus):
                _ = chain.dispatch(.focus(focus))
                performRequests()
            case .pasteTooLong:
                refuseLongLine(restDiscarded: false)
            }
        }
    }

    /// Lets readline take the text delivered; draws the line now, unless it is long and input
    /// is still arriving.
    ///
    /// Redrawing costs the line's length, and a paste the terminal did not bracket arrives in
    /// reads of a few KB: one redraw per read made a 1 MiB paste O(n²) (2 s of CPU). A long
    /// line's redraw therefore waits until the input has paused for `LineEditor.redrawPause`,
    /// so a paste is drawn once; a short line (anything typed) is drawn at once.
    private func drainText(moreComing: Bool) {
        let long = editor.pendingLineLength >= LineEditor.redrawsAtOnce
        editor.drainText(moreComing: moreComing || long)
        guard editor.hasHeldRedisplay else {
            redrawDue = nil
            return
        }
        redrawDue = long ? clock.now + LineEditor.redrawPause : clock.now
    }

    /// Printable bytes only (UTF-8 included), no control, no escape: what readline inserts.
    private static func isPlainText(_ key: KeyPress) -> Bool {
        !key.isPaste && !key.bytes.isEmpty && key.bytes.allSatisfy { $0 >= 0x20 && $0 != 0x7F }
    }

    /// `restDiscarded`: typed (or pasted unbracketed), so what follows up to Enter is dropped too.
    private func refuseLongLine(restDiscarded: Bool) {
        let rest = restDiscarded ? " What follows, up to the next Enter, is discarded." : ""
        editor.refuseLine("ward: " + Line.tooLongMessage + rest)
    }

    private func wake() {
        guard !ended else { return }
        deliver(decoder.flush(at: clock.now))
        if let due = redrawDue, clock.now >= due {
            redrawDue = nil
            if input == .shell { editor.showHeldRedisplay() }
        }
        chain.fireDueTimers()
        performRequests()
        if let due = machine.nextDeadline, clock.now >= due { perform(machine.deadlinePassed()) }
    }

    // MARK: Lines

    private func lineCompleted(_ completion: LineEditor.Completion) {
        switch completion {
        case .endOfInput:
            Terminal.write("\n")
            perform(machine.signOff(.user))
        case .line(let text) where text.utf8.count > Line.maximumLength:
            // Grown past the limit by editing (yanks): refused before the chain sees it.
            Terminal.write("ward: \(Line.tooLongMessage)\n")
            finished(.failed)
        case .line(let text) where question != nil:
            // The answer to the command's question: its keys passed the chain; it is not a command.
            question = nil
            finished(runner.answer(text))
        case .line(let text):
            switch chain.dispatch(.line(Line(text))) {
            case .delivered(.line(let line)):
                let run = CommandInterruption.run { runner.run(line) }
                if let signal = run.abandonedBy { announce(.abandoned(line, because: signal)) }
                finished(run.result)
            case .delivered, .consumed:
                finished(.succeeded)
            case .denied(let message):
                Terminal.write("ward: " + Sanitizer.text(message) + "\n")
                announce(.denied(Line(text), message: message))
                finished(.failed)
            }
        }
    }

    /// After a command (or an answer): the chain hears what it did, then the next prompt, the
    /// command's question, the lock or the end.
    private func finished(_ result: CommandResult) {
        for event in runner.takeSessionEvents() { announce(event) }
        performRequests()
        guard input == .shell else { return }  // a plugin locked or ended the session
        switch result {
        case .signOff: perform(machine.signOff(.user))
        case .lock: perform(machine.lock(.user))
        case .ask(let text):
            question = text
            showPrompt()
        case .succeeded, .failed: showPrompt()
        }
    }

    private func showPrompt() {
        _ = chain.dispatch(.session(.promptReady))
        performRequests()
        guard input == .shell else { return }
        if focusReportsWanted { Terminal.write(Terminal.focusReportingOn) }
        editor.prompt = question ?? runner.prompt
        editor.install()
        editor.drain()  // keys typed ahead during the command
    }

    // MARK: Performing

    private func perform(_ actions: [SessionMachine.Action]) {
        for action in actions {
            guard !ended else { return }
            switch action {
            case .askUsername:
                ask("Username: ", kind: .visible, then: .username)
            case .askPassword(let user, let reason):
                ask("Password for \(user): ", kind: .secret, then: .password(user: user, atLockScreen: reason != nil))
            case .announce(let event):
                announce(event)
            case .wipe(let user, let reason):
                wipeAndShowLockScreen(user: user, reason: reason)
            case .say(let text):
                input = .discard
                Terminal.write(Sanitizer.text(text) + "\n")
            case .resumeShell:
                resumeShell()
            case .end(let reason, let status):
                finish(reason, status: status)
            }
        }
    }

    private func ask(_ text: String, kind: PromptReader.Kind, then next: Input) {
        currentPrompt = (text, kind)
        input = next
        prompts.show(text, kind: kind)
    }

    private func announce(_ event: SessionEvent) {
        chain.announce(event)
        performRequests()
    }

    private func resumeShell() {
        guard case .signedOn(let user, let role) = machine.state else { return }
        terminal.restore()
        currentPrompt = nil
        Terminal.write(Terminal.clearScreenAndScrollback)
        for line in signOnLines { Terminal.write(Sanitizer.text(line) + "\n") }
        signOnLines = []
        if discardedLines > 0 {
            let lines = discardedLines == 1 ? "1 line" : "\(discardedLines) lines"
            Terminal.write("\(lines) typed while locked \(discardedLines == 1 ? "was" : "were") discarded, not run.\n")
            discardedLines = 0
        }
        runner.signedOn(user: user, role: role)
        input = .shell
        showPrompt()
    }

    /// Everything loaded goes, then the screen: the shell's charts and caches, readline's
    /// memory of every line, keys typed ahead, stdout's buffer; then the screen and scrollback.
    private func wipeAndShowLockScreen(user: String, reason: LockReason) {
        input = .discard
        discardedLines += editor.discardQueuedInput() + prompts.discardTypeahead()
        runner.wipe()
        question = nil
        editor.remove()
        editor.wipe()
        decoder.wipe()
        Terminal.write(Terminal.clearScreenAndScrollback + Terminal.focusReportingOff)
        Terminal.write("Ward is locked: \(Self.explain(reason)). Signed on as \(Sanitizer.line(user)).\n")
        Terminal.write("Type the password to unlock, or press Ctrl-D to sign off.\n")
        logger.info("session locked", metadata: ["lock.reason": "\(reason)"])
    }

    private static func explain(_ reason: LockReason) -> String {
        switch reason {
        case .idle: "no activity"
        case .suspend: "away after Ctrl-Z"
        case .focus: "the window was out of focus"
        case .user: "locked by the user"
        case .maxSession: "the session time limit was reached"
        case .failure: "a safeguard failed"
        }
    }

    // MARK: Requests

    private func performRequests() {
        for request in chain.takeRequests() {
            guard !ended else { return }
            switch request {
            case .notice(let text):
                if input == .shell { editor.printAbove(text) }
            case .lock(let reason):
                perform(machine.lock(reason))
            case .signOff(let reason):
                perform(machine.signOff(reason))
            case .focusReporting(let on):
                focusReportsWanted = on
                if input == .shell { Terminal.write(on ? Terminal.focusReportingOn : Terminal.focusReportingOff) }
            }
        }
    }

    // MARK: Signals

    private func handleSignals() {
        guard let signals else { return }
        for signal in signals.drain() {
            guard !ended else { return }
            switch signal {
            case .sigint, .sigquit:
                interrupt()
            case .sigtstp:
                suspend()
            case .sigcont where resumedFromOwnStop:
                resumedFromOwnStop = false
            case .sigcont:
                // A stop that was not ours (kill -STOP): take the terminal back as it was.
                resume(away: .zero)
            case .sighup:
                // Every signal passes the chain (the audit log records it), as in a batch.
                _ = chain.dispatch(.lifecycle(.hangup))
                performRequests()
                perform(machine.signOff(.hangup, status: 129))
            case .sigterm:
                _ = chain.dispatch(.lifecycle(.terminate))
                performRequests()
                perform(machine.signOff(.terminate, status: 143))
            case .sigwinch:
                _ = chain.dispatch(.lifecycle(.resize))
                performRequests()
                if input == .shell { editor.resize() }
            default:
                break
            }
        }
    }

    private func interrupt() {
        let outcome = chain.dispatch(.lifecycle(.interrupt))
        performRequests()
        guard case .delivered = outcome else { return }
        if input == .shell {
            editor.cancelLine()
        } else if let prompt = currentPrompt {
            // The kernel threw the partial line away (ISIG); ask again on a fresh line.
            Terminal.write("\n")
            prompts.show(prompt.text, kind: prompt.kind)
        }
    }

    /// Ctrl-Z: the chain hears of it first (a plugin may lock, which wipes before the stop),
    /// then the screen is cleared, the terminal handed back, and the process stops until `fg`.
    private func suspend() {
        _ = chain.dispatch(.lifecycle(.suspend))
        performRequests()
        guard !ended, let signals else { return }
        Terminal.write(Terminal.clearScreenAndScrollback + Terminal.focusReportingOff)
        Terminal.write("Ward is stopped and its screen cleared. Type 'fg' to go back.\n")
        if input == .shell { editor.prepareForStop() }
        terminal.restore()
        let stoppedAt = clock.now
        signals.stopUntilContinued()
        resumedFromOwnStop = true  // this resume stands for the SIGCONT byte now in the pipe
        resume(away: clock.now - stoppedAt)
    }

    private func resume(away: Duration) {
        _ = chain.dispatch(.lifecycle(.resume(away: away)))
        if input == .shell {
            if focusReportsWanted { Terminal.write(Terminal.focusReportingOn) }
            editor.resumeAfterStop()
        } else if let prompt = currentPrompt {
            prompts.show("\n" + prompt.text, kind: prompt.kind, flush: false)
        }
        performRequests()
    }

    // MARK: Ending

    /// Clears the screen, restores the terminal, and stops the loop. A second call (a SIGTERM
    /// during the first) does nothing.
    ///
    /// The screen and scrollback are cleared because a clinician who signs off at a shared
    /// terminal must not leave a chart on it. Memory needs no wipe here: the process exits.
    private func finish(_ reason: SignOffReason, status: Int32) {
        guard !ended else { return }
        ended = true
        exitStatus = status
        input = .discard
        _ = chain.takeRequests()
        editor.remove()
        decoder.wipe()
        chain.removeAll()
        if reason != .failedAttempts, status != AttemptThrottle.exitCode {
            Terminal.write(Terminal.clearScreenAndScrollback)
        }
        Terminal.write(Terminal.focusReportingOff + "Signed off.\n")
        terminal.restore()
        loop.stop()
    }
}

@available(*, unavailable)
extension InteractiveSession: Sendable {}
