import CReadline
import Glibc
import Logging

/// A person at a terminal: keys, readline, the sign-on prompts and the lock screen.
///
/// ```
/// tty bytes ─► KeyDecoder ─► .key ─► driver.send ─► LineEditor (readline) ─► line ─► driver.run
/// prompts   ─► TerminalSignOn (canonical mode, never readline) ─► driver.checkPassword
/// ```
///
/// The sign-on prompts, the banner and the last words are `TerminalSignOn`'s, shared with
/// `ward exec`. Keys typed ahead of a lock are thrown away, never run, and counted for the user.
///
/// A command's output taller than the window is paged here (`Pager`), never by a pager
/// program: while paging, every key still passes the chain first, the idle timer counts from
/// the moment the page is shown, and a lock wipes the page (`PageBuffer`) and leaves the
/// alternate screen it was drawn on before the screen and scrollback are cleared.
///
/// - Important: Not `Sendable`. It runs on the driver's loop thread.
public final class TerminalFrontEnd: SessionFrontEnd {
    /// What the terminal's input is for right now.
    private enum Input: Equatable {
        /// Keys for readline and the shell.
        case shell
        /// Keys for the pager: a command's output is being read a page at a time.
        case pager
        /// Sign-on's (`TerminalSignOn`): an answer to a prompt, or typeahead to throw away (a
        /// wrong password's delay, the lock screen's text, the end).
        case signOn
    }

    public let user: String?
    public var isInteractive: Bool { true }
    public var inputFD: Int32 { terminal.fd }

    private let terminal: Terminal
    private let signOn: TerminalSignOn
    /// The user's colour and bell for the idle warning (`TerminalStyle`).
    private let style: TerminalStyle
    private let editor = LineEditor()
    private unowned var driver: SessionDriver!
    private var keys = KeyReader()
    private var input = Input.signOn
    /// A plugin asked for focus reports; they are on whenever the shell has the terminal.
    private var focusReportsWanted = false
    /// The question the last command asked (break the glass: why?); the next line answers it.
    private var question: String?
    /// Lines typed ahead of a lock and thrown away; the user is told after unlocking.
    private var discardedLines = 0
    /// A typed line went past `Line.maximumLength`: its remaining keys, up to its Enter, are dropped.
    private var discardingLongLine = false
    /// When a long line's held redraw is due (`LineEditor.redrawsAtOnce`), nil when none is held.
    private var redrawDue: Instant?
    /// Where the shell's text goes while a command runs; nil when output is never paged.
    private let pages: PageBuffer?
    /// The page on screen, while `input` is `.pager`.
    private var pager: Pager?
    /// What the command that is being paged asked for next (a prompt, a question).
    private var afterPaging: CommandResult?
    /// The pager's alternate screen is on: a lock, a stop or the end leaves it before clearing.
    private var onAlternateScreen = false
    /// Back from Ctrl-Z while paging: the page is drawn again at the next wake-up, after the
    /// chain's requests (a lock for having been away too long), never before them.
    private var pageRedrawDue: Instant?

    /// - Parameters:
    ///   - user: `--user`, when given: the password is asked for at once.
    ///   - sshConnection: The value of `SSH_CONNECTION`, read by the executable, when set: the
    ///     sign-on is then recorded as an SSH login from its client address and port.
    ///   - style: Colour and bell for the idle warning, as the user's file and `NO_COLOR` decide.
    ///   - pages: Where the shell writes its text, when output taller than the window is to be
    ///     paged; nil never pages.
    public init(
        terminal: Terminal,
        user: String?,
        sshConnection: String? = nil,
        style: TerminalStyle = .plain,
        pages: PageBuffer? = nil
    ) {
        self.terminal = terminal
        self.user = user
        self.signOn = TerminalSignOn(terminal: terminal, sshConnection: sshConnection)
        self.style = style
        self.pages = pages
    }

    public var signOnSource: SignOnSource { signOn.signOnSource }

    public var nextDeadline: Instant? {
        keys.pendingDeadline.earliest(redrawDue).earliest(pageRedrawDue)
    }

    /// Registers, in the order a lock wipes them after the shell: keys typed ahead (counted),
    /// the question, the page being read (before readline, whose wipe zeroes standard output's
    /// buffer, which held the last page drawn), readline (taken away first, then wiped:
    /// docs/readline.md §3), and the key decoder's held bytes.
    public func attach(to driver: SessionDriver, wipeList: WipeList) {
        self.driver = driver
        editor.completer = { [unowned driver] word, before in driver.runner.completions(for: word, before: before) }
        editor.completionLabel = { [unowned driver] candidate in driver.runner.completionLabel(for: candidate) }
        editor.onCompletion = { [unowned self] in self.lineCompleted($0) }
        wipeList.register("typeahead") { [unowned self] in
            discardedLines += editor.discardQueuedInput() + signOn.discardTypeahead()
        }
        wipeList.register("question") { [unowned self] in question = nil }
        wipeList.register("pager") { [unowned self] in wipePager() }
        wipeList.register("readline") { [unowned self] in
            editor.remove()
            editor.wipe()
        }
        wipeList.register("key decoder") { [unowned self] in keys.wipe() }
    }

    public func open() {}

    public func close() { terminal.restore() }

    // MARK: Input

    public func inputReadable() {
        switch input {
        case .shell, .pager:
            switch keys.read(terminal.fd, at: driver.clock.now) {
            case .keys(let outputs, let moreComing): deliver(outputs, moreComing: moreComing)
            case .nothing: break
            // A hangup, which the chain hears, often before the SIGHUP itself arrives.
            case .closed: driver.terminalClosed()
            }
        case .signOn:
            discardedLines += signOn.inputReadable(driver: driver)
        }
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
        defer { if hasShell, !outputs.isEmpty { drainText(moreComing: moreComing) } }
        for (i, output) in outputs.enumerated() {
            if input == .pager, !driver.hasEnded {
                if case .key(let key) = output {
                    pagerKey(key)
                } else if case .focus(let focus) = output {
                    driver.send(.focus(focus))
                }
                continue
            }
            guard hasShell else {
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
                guard case .delivered(.key(let passed)) = driver.send(.key(key)), hasShell else { continue }
                if Self.isPlainText(passed) {
                    editor.queueText(passed.bytes)
                } else {
                    editor.feed(passed.bytes)
                }
            case .focus(let focus):
                driver.send(.focus(focus))
            case .pasteTooLong:
                refuseLongLine(restDiscarded: false)
            }
        }
    }

    /// The shell has the keys: signed on, not locked, not ended.
    private var hasShell: Bool { !driver.hasEnded && input == .shell }

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
        redrawDue = long ? driver.clock.now + LineEditor.redrawPause : driver.clock.now
    }

    /// Printable bytes only (UTF-8 included), no control, no escape: what readline inserts.
    private static func isPlainText(_ key: KeyPress) -> Bool {
        !key.isPaste && !key.bytes.isEmpty && key.bytes.allSatisfy { $0 >= 0x20 && $0 != 0x7F }
    }

    /// `restDiscarded`: typed (or pasted unbracketed), so what follows up to Enter is dropped too.
    private func refuseLongLine(restDiscarded: Bool) {
        let rest = restDiscarded ? " What follows, up to the next Enter, is discarded." : ""
        let start = editor.refuseLine("ward: " + Line.tooLongMessage + rest)
        driver.refuseLongLine(startingWith: start, source: .tty)
    }

    public func wake() {
        deliver(keys.flush(at: driver.clock.now))
        if let due = redrawDue, driver.clock.now >= due {
            redrawDue = nil
            if input == .shell { editor.showHeldRedisplay() }
        }
        if let due = pageRedrawDue, driver.clock.now >= due {
            pageRedrawDue = nil
            if input == .pager { redrawPageAfterStop() }
        }
    }

    // MARK: Lines

    private func lineCompleted(_ completion: LineEditor.Completion) {
        switch completion {
        case .endOfInput:
            Terminal.write("\n")
            driver.signOff(.user)
        case .line(let text) where question != nil && text.utf8.count > Line.maximumLength:
            // An answer grown past the limit by editing (yanks): refused; the question stands.
            refused(Line(""), message: Line.tooLongMessage)
            driver.refuseLongLine(startingWith: "", source: .tty)
            finished(.failed)
        case .line(let text) where question != nil:
            // The answer to the command's question: its keys passed the chain; it is not a command.
            question = nil
            finished(driver.answer(text))
        case .line(let text):
            pages?.startCapturing()
            switch driver.submit(Line(text)) {
            case .ran(let result): finished(result)
            case .consumed: finished(.succeeded)
            case .refused: finished(.failed)
            }
        }
    }

    /// After a command (or an answer): the next prompt, the command's question, the lock or the end.
    private func finished(_ result: CommandResult) {
        guard driver.isSignedOn else { return }  // a plugin locked or ended the session
        if input == .pager {
            // The prompt waits for the pager's q; the user reads now, so the idle clock counts
            // from here, as it would from the prompt.
            afterPaging = result
            driver.send(.session(.promptReady))
            return
        }
        driver.proceed(after: result)
    }

    public func refused(_ line: Line, message: String) {
        Terminal.write("ward: " + Sanitizer.text(message) + "\n")
    }

    /// The command's output is shown now, before the plugins' requests (a notice, a lock): at
    /// once when it fits the window, else a page at a time.
    public func commandFinished(_ line: Line, _ outcome: SessionDriver.LineOutcome) {
        guard let pages, pages.isCapturing else { return }
        pages.stopCapturing()
        let size = terminal.size
        switch outcome {
        case .ran(.succeeded), .ran(.failed), .ran(.missingContext), .ran(.ask), .ran(.readsText):
            // Every line takes a row at least; fewer lines may still wrap to more rows.
            if pages.count >= size.rows || Pager.rowCount(of: pages, columns: size.columns) >= size.rows {
                return startPaging(rows: size.rows, columns: size.columns)
            }
        default:
            break
        }
        pages.printKept()
    }

    public func showPrompt(question: String?) {
        if let question { self.question = question }
        if focusReportsWanted { Terminal.write(Terminal.focusReportingOn) }
        editor.prompt = question ?? driver.runner.prompt
        editor.install()
        editor.drain()  // keys typed ahead during the command
    }

    // MARK: What the session shows

    public func askUsername() { prompt { $0.askUsername() } }

    public func askPassword(user: String, lockedBecause reason: LockReason?) { prompt { $0.askPassword(user: user) } }

    /// Sign-on has the terminal, and shows a prompt.
    private func prompt(_ show: (TerminalSignOn) -> Void) {
        input = .signOn
        show(signOn)
    }

    public func say(_ text: String) {
        input = .signOn
        signOn.say(text)
    }

    public func notice(_ text: String) {
        if input == .shell { editor.printAbove(text) }
        if input == .pager {
            pager?.show(notice: text)
            drawPage()
        }
    }

    public func lockWarning(_ text: String) {
        let warning = style.warning
        if input == .shell { editor.printAbove(text, prefix: warning.prefix, suffix: warning.suffix) }
        if input == .pager {
            // The status line is plain text; the bell still rings.
            if style.bell { Terminal.write(TerminalStyle.bellCharacter) }
            notice(text)
        }
    }

    public func setFocusReporting(_ on: Bool) {
        focusReportsWanted = on
        if input == .shell || input == .pager {
            Terminal.write(on ? Terminal.focusReportingOn : Terminal.focusReportingOff)
        }
    }

    public func showShell(news: [String]) {
        signOn.showShell(news: news)
        if discardedLines > 0 {
            let lines = discardedLines == 1 ? "1 line" : "\(discardedLines) lines"
            Terminal.write("\(lines) typed while locked \(discardedLines == 1 ? "was" : "were") discarded, not run.\n")
            discardedLines = 0
        }
        input = .shell
    }

    /// Everything loaded is gone (the lock walked its holders); now the screen and scrollback.
    public func showLockScreen(user: String, reason: LockReason) {
        input = .signOn
        leaveAlternateScreen()
        signOn.showLockScreen(user: user, reason: reason, requestedBy: driver.lockRequestedBy)
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
        case .interrupt where input == .shell:
            editor.cancelLine()
        case .interrupt where input == .pager:
            // As at readline's prompt: Ctrl-C gives up what is being typed (a search), else as q.
            if pager?.isTypingSearch == true {
                pager?.cancelSearch()
                drawPage()
            } else {
                stopPaging()
            }
        case .resize where input == .pager:
            let size = terminal.size
            pager?.resize(rows: size.rows, columns: size.columns)
            drawPage()
        case .interrupt:
            signOn.interrupted()
        case .resize:
            if input == .shell { editor.resize() }
        default:
            break
        }
    }

    public func stopping(by signal: UnixSignal) {}

    /// Ctrl-Z: the screen is cleared and the terminal handed back before the process stops.
    private func willStop() {
        leaveAlternateScreen()
        signOn.clearForStop()
        Terminal.write(TerminalSignOn.stoppedMessage)
        if input == .shell { editor.prepareForStop() }
        terminal.restore()
    }

    private func resumed() {
        if input == .pager {
            pageRedrawDue = driver.clock.now
        } else if input == .shell {
            if focusReportsWanted { Terminal.write(Terminal.focusReportingOn) }
            editor.resumeAfterStop()
        } else {
            signOn.resumed()
        }
    }

    // MARK: Ending

    /// Readline and the pager leave the terminal first; then `TerminalSignOn.signedOff`.
    public func ended(_ reason: SignOffReason, status: ExitStatus) {
        input = .signOn
        leaveAlternateScreen()
        editor.remove()
        keys.wipe()
        signOn.signedOff(reason, status: status)
    }
}

// MARK: Paging

extension TerminalFrontEnd {
    /// The kept output is taller than the window: the first page, on the alternate screen (so
    /// no page goes into the terminal's scrollback), with keys read one at a time, unechoed.
    private func startPaging(rows: Int, columns: Int) {
        guard let pages else { return }
        pager = Pager(buffer: pages, rows: rows, columns: columns)
        input = .pager
        enterPagerMode()
        drawPage()
    }

    /// Keys one at a time, no echo; Ctrl-C and Ctrl-Z still signal. Readline is not installed,
    /// so the terminal is as Ward found it until now.
    private func enterPagerMode() {
        terminal.readKeysOneAtATime()
        if !onAlternateScreen {
            Terminal.write(Terminal.alternateScreenOn)
            onAlternateScreen = true
        }
    }

    /// After `fg`, unless the session locked meanwhile: the terminal's mode and the page again.
    private func redrawPageAfterStop() {
        if focusReportsWanted { Terminal.write(Terminal.focusReportingOn) }
        enterPagerMode()
        let size = terminal.size
        pager?.resize(rows: size.rows, columns: size.columns)
        drawPage()
    }

    private func drawPage() {
        guard input == .pager, let pager else { return }
        Terminal.write(Pager.drawing(pager.screen()))
    }

    /// A key that passed the chain (the idle timer has seen it), for the pager.
    private func pagerKey(_ key: KeyPress) {
        guard case .delivered(.key(let passed)) = driver.send(.key(key)), input == .pager else { return }
        guard pager?.handle(passed.bytes) == .quit else { return drawPage() }
        stopPaging()
    }

    /// q: the normal screen and the prompt come back, under the last page, so that what was
    /// read stays in view (the next lock clears it with the screen and its scrollback); the
    /// pager's copy is wiped.
    private func stopPaging() {
        let result = afterPaging ?? .succeeded
        let lastPage = pager?.lastPage() ?? []
        wipePager()
        leaveAlternateScreen()
        if !lastPage.isEmpty { Terminal.write(lastPage.joined(separator: "\r\n") + "\r\n") }
        terminal.restore()
        input = .shell
        finished(result)
    }

    /// The lock's part, and q's: the page, the search typed and the kept output are zeroed.
    private func wipePager() {
        pager?.wipe()
        pager = nil
        afterPaging = nil
        pageRedrawDue = nil
        pages?.wipe()
        if input == .pager { input = .signOn }
    }

    private func leaveAlternateScreen() {
        guard onAlternateScreen else { return }
        onAlternateScreen = false
        Terminal.write(Terminal.alternateScreenOff)
    }
}

@available(*, unavailable)
extension TerminalFrontEnd: Sendable {}
