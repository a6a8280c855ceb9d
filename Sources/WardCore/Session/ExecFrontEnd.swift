import CWardSystem
import Glibc

/// `ward exec`: a person at a terminal, relayed to a program in a pseudo-terminal with the
/// site's chain in between.
///
/// ```
/// tty bytes ─► KeyDecoder ─► .key ─► driver.send ─► TypedLine ─► program's pty (master)
///                                                      └─ Enter ─► driver.submit(.line) ─► relayed, or dropped
/// pty output ─► the user's terminal (only while signed on and unlocked)
/// pidfd      ─► the program ended ─► .programExited ─► sign-off with its status
/// prompts    ─► TerminalSignOn (canonical mode) ─► driver.checkPassword
/// ```
///
/// The same driver as the records shell's: sign-on, lockout, the idle timer, the audit log,
/// external plugins, the focus and suspend guards work unchanged, because every key passes
/// `driver.send` before the program sees it.
///
/// A line a plugin refuses never runs: the key that would submit it (Enter) is held until the
/// line has passed the chain; when it does not, the key is dropped, the program is sent
/// Ctrl-E Ctrl-U (end of line, kill the line: readline's keys, and a canonical-mode terminal's
/// kill character, where Ctrl-E is killed with the rest), and Ward says why. Holding every key
/// until Enter instead would be as safe, but the program could not echo or complete anything
/// as it is typed.
///
/// On a lock, relaying stops and the program is frozen or hung up as the site says
/// (`ProgramSupervisor`, which owns the process); what it prints meanwhile stays unread in the
/// pseudo-terminal, in the kernel, and is drawn after unlocking. The screen and scrollback are
/// cleared, and the modes a program may have set on the user's terminal (the alternate screen,
/// mouse reports, bracketed paste) are turned off first, so the clearing reaches the screen
/// that held its output.
///
/// The user's terminal is raw while relaying, except that Ctrl-Z still raises SIGTSTP: a
/// suspend is Ward's (the suspend guard), not the program's. Ctrl-C and Ctrl-\ are plain bytes
/// for the program (Ctrl-\ twice is the default lock key).
///
/// - Important: Not `Sendable`. It runs on the driver's loop thread.
public final class ExecFrontEnd: SessionFrontEnd {
    private enum Input: Equatable {
        /// Keys for the program.
        case relay
        /// Sign-on's (`TerminalSignOn`): an answer to a prompt, or typeahead to throw away.
        case signOn
    }

    /// How long the first key of a two-key lock sequence is held before it goes to the
    /// program as an ordinary key.
    public static let lockKeyPause: Duration = .seconds(1)

    /// What the program is sent when a line it holds is refused: Ctrl-E Ctrl-U.
    static let dropLine: [UInt8] = [0x05, 0x15]

    /// Turns off what a program may have turned on in the user's terminal, before the lock
    /// screen or the sign-off clears it: the alternate screen (whose clearing would leave the
    /// main screen's), mouse reports, bracketed paste, application cursor keys and keypad,
    /// hidden cursor, colours.
    static let programModesOff =
        "\u{1B}[?1049l\u{1B}[?1000l\u{1B}[?1002l\u{1B}[?1003l\u{1B}[?1006l\u{1B}[?2004l\u{1B}[?1l\u{1B}>\u{1B}[?25h\u{1B}[0m"

    public let user: String?
    public var isInteractive: Bool { true }
    public var inputFD: Int32 { terminal.fd }
    public var signOnSource: SignOnSource { signOn.signOnSource }

    public var nextDeadline: Instant? {
        [keys.pendingDeadline, heldLockKey.map { $0.since + Self.lockKeyPause }, supervisor.killAt, restoreSizeAt]
            .compactMap { $0 }.min()
    }

    private let terminal: Terminal
    private let signOn: TerminalSignOn
    private let supervisor: ProgramSupervisor
    private var program: ProgramRunner { supervisor.runner }
    private let lockKey: [[UInt8]]
    private unowned var driver: SessionDriver!
    private var keys = KeyReader()
    private var line = TypedLine()
    private var input = Input.signOn
    private var focusReportsWanted = false
    /// The first key of the lock sequence, held to see what follows.
    private var heldLockKey: (key: KeyPress, since: Instant)?
    /// After `fg`, the program is continued on the next wake-up, once it is clear that the
    /// resume did not lock (a program continued and stopped again could draw in between).
    private var thawOnWake = false
    /// When the program gets its real window size back after a thaw's redraw (`thaw()`).
    private var restoreSizeAt: Instant?
    private var outputBuffer = [UInt8](repeating: 0, count: 65536)

    /// - Parameters:
    ///   - lockKey: One or two keys that lock at once (`[exec] lock-key`); empty for none.
    ///   - killGrace: How long a program hung up at a lock has before SIGKILL.
    ///   - sshConnection: `SSH_CONNECTION`, read by the executable, when set.
    public init(
        terminal: Terminal,
        user: String?,
        program: ProgramRunner,
        lockKey: [[UInt8]] = ExecPolicy.defaultLockKey,
        killGrace: Duration = .seconds(2),
        sshConnection: String? = nil
    ) {
        self.terminal = terminal
        self.user = user
        self.signOn = TerminalSignOn(terminal: terminal, sshConnection: sshConnection)
        self.supervisor = ProgramSupervisor(runner: program, killGrace: killGrace)
        self.lockKey = lockKey.filter { !$0.isEmpty }
    }

    /// Registers, after the program's queued keys (the driver's runner): the line being typed,
    /// the key decoder's held bytes, the held lock key, and the relay's buffers.
    public func attach(to driver: SessionDriver, wipeList: WipeList) {
        self.driver = driver
        wipeList.register("typed line") { [unowned self] in line.wipe() }
        wipeList.register("key decoder") { [unowned self] in
            keys.wipe()
            heldLockKey = nil
        }
        wipeList.register("relay buffers") { [unowned self] in explicit_bzero(&outputBuffer, outputBuffer.count) }
    }

    public func open() {}

    /// On every way out: the program is ended without waiting long, and the terminal restored.
    public func close() {
        supervisor.end(grace: .milliseconds(100))
        program.releaseTerminal()
        terminal.restore()
    }

    // MARK: Input

    public func inputReadable() {
        switch input {
        case .relay:
            switch keys.read(terminal.fd, at: driver.clock.now) {
            case .keys(let outputs, _): deliver(outputs)
            case .nothing: break
            case .closed: driver.terminalClosed()
            }
        case .signOn:
            _ = signOn.inputReadable(driver: driver)
        }
    }

    private var isRelaying: Bool { input == .relay && !driver.hasEnded && driver.isSignedOn }

    private func deliver(_ outputs: [KeyDecoder.Output]) {
        for output in outputs {
            guard isRelaying else { return }  // locked or ended by an earlier key: the rest is dropped
            switch output {
            case .key(let key): press(key)
            case .focus(let focus): driver.send(.focus(focus))
            case .pasteTooLong:
                // Dropped whole, as the shell drops it; the program never saw any of it.
                Self.writeOut(Array(("\r\nward: " + Line.tooLongMessage + "\r\n").utf8)[...])
                driver.refuseLongLine(startingWith: line.text, source: source)
                redraw()
            }
        }
    }

    /// One key: the lock sequence first, then the chain, then the program.
    private func press(_ key: KeyPress) {
        if let first = lockKey.first {
            if let held = heldLockKey {
                heldLockKey = nil
                if key.bytes == lockKey.last {
                    driver.send(.key(key))  // activity, as any key
                    return driver.lock(.user)
                }
                relay(held.key)
                guard isRelaying else { return }
            }
            if key.bytes == first, !key.isPaste {
                if lockKey.count == 1 {
                    driver.send(.key(key))
                    return driver.lock(.user)
                }
                heldLockKey = (key, driver.clock.now)
                return
            }
        }
        relay(key)
    }

    /// The key passes the chain; what passed goes to the program, a line's end only once the
    /// line has passed too.
    private func relay(_ key: KeyPress) {
        guard case .delivered(.key(let passed)) = driver.send(.key(key)), isRelaying else { return }
        switch line.take(passed) {
        case .relay:
            write(bytes(of: passed))
        case .submit(let lines):
            for text in lines {
                switch driver.submit(Line(text, source: source)) {
                case .ran:
                    guard let ran = program.takePassed(), isRelaying else { return }
                    if ran.text != text, !passed.isPaste {
                        // A plugin rewrote the line: the program's copy is replaced before Enter.
                        write(Self.dropLine + Array(ran.text.utf8))
                    }
                case .consumed:
                    guard isRelaying else { return }
                    line.clear()
                    return write(Self.dropLine)
                case .refused:
                    return  // `refused(_:message:)` has dropped it
                }
            }
            line.submitted()
            write(bytes(of: passed))
        }
    }

    private var source: Line.Source { .program(supervisor.program.name) }

    /// A key's bytes as the terminal sent them: a paste in its brackets, since the program
    /// asked for them (`ESC[?2004h`).
    private func bytes(of key: KeyPress) -> [UInt8] { key.bytes }

    private func write(_ bytes: [UInt8]) {
        guard let terminal = program.terminal else { return }
        if program.send(bytes) {
            driver.watchWritable(terminal.master) { [unowned self] in
                if !program.flush(), let t = program.terminal { driver.unwatchWritable(t.master) }
            }
        }
    }

    public func wake() {
        if !driver.hasEnded { deliver(keys.flush(at: driver.clock.now)) }
        if let held = heldLockKey, driver.clock.now >= held.since + Self.lockKeyPause {
            heldLockKey = nil
            if isRelaying { relay(held.key) }
        }
        supervisor.wake(now: driver.clock.now)
        if thawOnWake {
            thawOnWake = false
            if isRelaying { thaw() }
        }
        if let due = restoreSizeAt, driver.clock.now >= due {
            restoreSizeAt = nil
            program.terminal?.resize(to: terminal.size)
        }
    }

    // MARK: The program's output and end

    private func programReadable() {
        guard isRelaying, let pty = program.terminal else {
            if let pty = program.terminal { driver.unwatch(pty.master) }
            return
        }
        guard let n = pty.read(into: &outputBuffer) else {
            // Every holder of the slave is gone; the pidfd tells when the program itself is.
            return driver.unwatch(pty.master)
        }
        guard n > 0 else { return }
        Self.writeOut(outputBuffer[0..<n])
        // A program that turns focus reports off (or resets the terminal) would blind the
        // focus guard: they are turned on again after its output.
        if focusReportsWanted, outputBuffer[0..<n].contains(0x1B) {
            Self.writeOut(Array(Terminal.focusReportingOn.utf8)[...])
        }
        explicit_bzero(&outputBuffer, n)
    }

    /// The program's bytes to the user's terminal as they are, with `write(2)`: they are
    /// its screen, escape sequences included (a program in a terminal draws with them), and
    /// stdio would keep a copy in its buffer. Whatever Ward wrote through stdio is flushed first.
    private static func writeOut(_ bytes: ArraySlice<UInt8>) {
        fflush(ward_stdout())
        var written = 0
        bytes.withUnsafeBytes { raw in
            while written < raw.count {
                let n = Glibc.write(STDOUT_FILENO, raw.baseAddress! + written, raw.count - written)
                if n > 0 {
                    written += n
                } else if n < 0, errno == EINTR || errno == EAGAIN {
                    continue
                } else {
                    return  // the terminal is gone: its hangup comes as SIGHUP or EOF
                }
            }
        }
    }

    private func programEnded() {
        guard let child = program.child, child.reap() != nil else { return }
        driver.unwatch(child.exitFD)
        if let pty = program.terminal {
            driver.unwatch(pty.master)
            driver.unwatchWritable(pty.master)
            // Its last words (a goodbye, an error) are still in the pty.
            if isRelaying {
                while let n = pty.read(into: &outputBuffer), n > 0 {
                    Self.writeOut(outputBuffer[0..<n])
                    explicit_bzero(&outputBuffer, n)
                }
            }
        }
        answerExecs()
        unwatchGate()
        guard let exit = supervisor.reap() else { return }
        driver.send(.session(.programExited(exit)))
        if supervisor.startsAgain { return }  // hung up at a lock: it starts again after unlocking
        guard !driver.hasEnded else { return }
        driver.signOff(.programExited, status: exit.status)
    }

    /// Starts the program, or continues it after a lock or a stop.
    private func startOrThaw() {
        if let child = program.child, supervisor.startsAgain {
            driver.unwatch(child.exitFD)
            unwatchGate()
        }
        if let exit = supervisor.endHungUp() {
            driver.send(.session(.programExited(exit)))
            guard isRelaying else { return }
        }
        if program.isRunning { return thaw() }
        // Recorded before it runs: an audit log that cannot record it keeps it from starting.
        guard case .delivered = driver.send(.session(.programStarted(supervisor.start))), isRelaying else { return }
        do throws(SystemError) {
            try supervisor.launch(settings: terminal.original, size: terminal.size)
        } catch {
            terminal.restore()
            Terminal.write("ward: cannot start \(Sanitizer.line(supervisor.program.path)): \(error)\n")
            let exit = ProgramExit.exited(error.code == ENOENT ? 127 : 126)
            driver.send(.session(.programExited(exit)))
            return driver.signOff(.programExited, status: exit.status)
        }
        watchProgram()
    }

    private func watchProgram() {
        guard let pty = program.terminal, let child = program.child else { return }
        driver.watch(pty.master) { [unowned self] in programReadable() }
        driver.watch(child.exitFD) { [unowned self] in programEnded() }
        if let gate = supervisor.gate { driver.watch(gate.listener) { [unowned self] in answerExecs() } }
    }

    /// The program, or one it started, tried to start a program: the site's may-run go on, the
    /// rest fail and are put on record. The program says so on its own screen (EPERM); Ward
    /// draws nothing over it.
    private func answerExecs() {
        guard let gate = supervisor.gate else { return }
        let answers = gate.answerWaiting()
        if answers.closed { driver.unwatch(gate.listener) }
        for attempt in answers.refused { driver.send(.session(.programExecDenied(attempt))) }
    }

    /// Stops watching for exec attempts before the program is forgotten (its listener closes).
    private func unwatchGate() {
        if let gate = supervisor.gate { driver.unwatch(gate.listener) }
    }

    /// How long the program has to handle the first of a redraw's two window sizes.
    static let redrawPause: Duration = .milliseconds(50)

    /// SIGCONT, then a redraw: the screen was cleared at the lock, and the program does not
    /// know. The site may add a key to send (`redraw-key`, such as Ctrl-L for readline).
    private func thaw() {
        supervisor.thaw()
        redraw()
        if !supervisor.program.rules.redrawKey.isEmpty { write(supervisor.program.rules.redrawKey) }
        watchProgram()
    }

    /// Makes the program draw its screen (or its prompt and line) again where the cursor is.
    ///
    /// A SIGWINCH alone does not do it: readline redraws only when the size has changed. So
    /// the program is told a size one row smaller, then, `redrawPause` later, the real one: two
    /// real changes, two redraws, the last at the right size.
    private func redraw() {
        let size = terminal.size
        program.terminal?.resize(to: size.rows > 2 ? (size.rows - 1, size.columns) : (size.rows, size.columns - 1))
        program.signal(SIGWINCH)
        restoreSizeAt = driver.clock.now + Self.redrawPause
    }

    // MARK: What the session shows

    public func askUsername() { prompt { $0.askUsername() } }

    public func askPassword(user: String, lockedBecause reason: LockReason?) { prompt { $0.askPassword(user: user) } }

    public func say(_ text: String) {
        if input == .relay { Terminal.write("\r\n") }
        input = .signOn
        terminal.restore()
        signOn.say(text)
    }

    /// Sign-on has the terminal (relaying has stopped), and shows a prompt.
    private func prompt(_ show: (TerminalSignOn) -> Void) {
        input = .signOn
        show(signOn)
    }

    /// Above the program's screen, on a line of its own; the program's own display is not
    /// redrawn (Ward cannot know what it showed).
    public func notice(_ text: String) {
        guard input == .relay else { return }
        Self.writeOut(Array(("\r\n" + Sanitizer.line(text) + "\r\n").utf8)[...])
    }

    public func setFocusReporting(_ on: Bool) {
        focusReportsWanted = on
        if input == .relay { Terminal.write(on ? Terminal.focusReportingOn : Terminal.focusReportingOff) }
    }

    public func showShell(news: [String]) { signOn.showShell(news: news) }

    /// Signed on or unlocked: the program starts (again, after a `kill` lock) or is thawed, and
    /// the keys go to it.
    public func showPrompt(question: String?) {
        input = .relay
        enterRawMode()
        if focusReportsWanted { Terminal.write(Terminal.focusReportingOn) }
        startOrThaw()
    }

    /// Raw, so every key reaches Ward as typed and the program's own terminal does the rest;
    /// only Ctrl-Z keeps raising a signal (SIGTSTP, for the suspend guard). Output is not
    /// processed: the program's terminal already did.
    private func enterRawMode() {
        var t = terminal.original
        t.c_iflag &= ~tcflag_t(IGNBRK | BRKINT | PARMRK | ISTRIP | INLCR | IGNCR | ICRNL | IXON)
        t.c_oflag &= ~tcflag_t(OPOST)
        t.c_lflag &= ~tcflag_t(ECHO | ECHONL | ICANON | IEXTEN)
        t.c_lflag |= tcflag_t(ISIG)
        t.c_cflag |= tcflag_t(CS8)
        withUnsafeMutableBytes(of: &t.c_cc) { cc in
            cc[Int(VINTR)] = 0  // _POSIX_VDISABLE: Ctrl-C is the program's
            cc[Int(VQUIT)] = 0  // and so is Ctrl-\ (the lock key's)
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        tcsetattr(terminal.fd, TCSANOW, &t)
    }

    /// The reason on a line of its own below the refused line, then the program's line is
    /// emptied and its prompt redrawn below the reason (its own redraw after Ctrl-U would start
    /// from where it believes the cursor is, above).
    public func refused(_ line: Line, message: String) {
        self.line.clear()
        Self.writeOut(Array(("\r\nward: " + Sanitizer.line(message) + "\r\n").utf8)[...])
        write(Self.dropLine)
        redraw()
    }

    public func commandFinished(_ line: Line, _ outcome: SessionDriver.LineOutcome) {}

    /// Everything Ward holds is wiped (the lock walked its holders); now the program, then the
    /// screen and scrollback.
    public func showLockScreen(user: String, reason: LockReason) {
        input = .signOn
        thawOnWake = false
        heldLockKey = nil
        if let pty = program.terminal {
            driver.unwatch(pty.master)
            driver.unwatchWritable(pty.master)
        }
        supervisor.lock(now: driver.clock.now)
        terminal.restore()
        signOn.showLockScreen(
            user: user,
            reason: reason,
            requestedBy: driver.lockRequestedBy,
            modesOff: Self.programModesOff
        )
        switch supervisor.program.rules.onLock {
        case .freeze: Terminal.write("\(Sanitizer.line(supervisor.program.name)) is stopped until you unlock.\n")
        case .kill:
            Terminal.write("\(Sanitizer.line(supervisor.program.name)) was ended; it starts again when you unlock.\n")
        }
        Terminal.write(LockScreen.howToUnlock)
    }

    public func showBanner(_ text: String) -> Bool { signOn.showBanner(text) }

    // MARK: Signals

    public func received(_ event: Lifecycle) {
        switch event {
        case .suspend:
            willStop()
        case .resume:
            resumed()
        case .resize:
            program.terminal?.resize(to: terminal.size)
        case .interrupt where input != .relay:
            signOn.interrupted()
        default:
            break
        }
    }

    public func stopping(by signal: UnixSignal) {}

    /// Ctrl-Z: the program stops with Ward, the screen is cleared and the terminal handed back.
    private func willStop() {
        if input == .relay { supervisor.freeze() }
        signOn.clearForStop(modesOff: Self.programModesOff)
        terminal.restore()
        Terminal.write(TerminalSignOn.stoppedMessage)
    }

    private func resumed() {
        if input == .relay {
            enterRawMode()
            thawOnWake = true
        } else {
            signOn.resumed()
        }
    }

    // MARK: Ending

    /// The program ends before the sign-off is recorded, so its exit is on record first.
    public func signingOff(_ reason: SignOffReason) {
        input = .signOn
        heldLockKey = nil
        guard let child = program.child, child.exit == nil else { return }
        if let pty = program.terminal {
            driver.unwatch(pty.master)
            driver.unwatchWritable(pty.master)
        }
        driver.unwatch(child.exitFD)
        unwatchGate()
        // Well inside the watchdog's grace after SIGHUP or SIGTERM (`TerminationWatchdog`).
        if let exit = supervisor.end(grace: .milliseconds(300)) { driver.send(.session(.programExited(exit))) }
    }

    /// The program ended and its modes off, then `TerminalSignOn.signedOff`.
    public func ended(_ reason: SignOffReason, status: ExitStatus) {
        input = .signOn
        keys.wipe()
        line.wipe()
        supervisor.end(grace: .milliseconds(100))
        program.releaseTerminal()
        signOn.signedOff(reason, status: status, modesOff: Self.programModesOff)
    }
}

@available(*, unavailable)
extension ExecFrontEnd: Sendable {}
