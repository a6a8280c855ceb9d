import Glibc

/// A subcommand's text, kept in a `PageBuffer`, shown at the terminal it runs on: at once when
/// it fits the window, else a page at a time with Ward's own `Pager`, as the shell pages its
/// tables (`ward audit show` and `ward audit report`).
///
/// The same pager as the shell's, not a pager program: the same keys and the same kept header
/// in both places, and no program the environment names (`$PAGER`, `less`'s `!` and
/// `LESSOPEN`) running with the audit trail on its input. Outside a session there is no chain:
/// the keys go straight to the pager, and nothing locks; the page is wiped when q ends it.
///
/// Keys are read from standard input, which must be the terminal; the caller pages only when
/// standard output is that terminal too. Ctrl-C ends paging as q does; Ctrl-Z clears the page,
/// gives the terminal back and stops, and `fg` draws it again; SIGTERM and SIGHUP leave the
/// alternate screen and restore the terminal before the command exits with 128 + the signal.
///
/// - Important: Not `Sendable`: it runs one loop on the calling thread until paging ends.
public final class CommandLinePager {
    private let pages: PageBuffer
    private let terminal: Terminal
    private var pager: Pager
    private let clock = BootClock()
    private let loop: EventLoop
    private var keys = KeyReader()
    private var onAlternateScreen = false
    /// The signal that ended paging, when one did.
    private var endedBy: UnixSignal?

    /// Shows what `pages` kept on `terminal`, a page at a time when it is taller than the
    /// window, and returns once the user is done. Returns the signal that ended it (SIGTERM,
    /// SIGHUP), after which the command should exit with 128 + its number; nil otherwise.
    public static func show(_ pages: PageBuffer, on terminal: Terminal) -> UnixSignal? {
        pages.stopCapturing()
        let size = terminal.size
        guard pages.count >= size.rows || Pager.rowCount(of: pages, columns: size.columns) >= size.rows else {
            pages.printKept()
            return nil
        }
        return CommandLinePager(pages: pages, terminal: terminal, rows: size.rows, columns: size.columns).run()
    }

    private init(pages: PageBuffer, terminal: Terminal, rows: Int, columns: Int) {
        self.pages = pages
        self.terminal = terminal
        self.pager = Pager(buffer: pages, rows: rows, columns: columns)
        self.loop = EventLoop(clock: clock)
    }

    private func run() -> UnixSignal? {
        let signals: SignalPipe
        do {
            signals = try SignalPipe(signals: [.sigint, .sigquit, .sigtstp, .sigcont, .sigwinch, .sigterm, .sighup])
        } catch {
            // No way to hear Ctrl-C or a resize: the text whole, as off a terminal.
            pages.printKept()
            return nil
        }
        defer { signals.close() }
        loop.watch(terminal.fd) { [unowned self] in readKeys() }
        loop.watch(signals.readEnd) { [unowned self] in
            for signal in signals.drain() { received(signal, signals: signals) }
        }
        loop.nextDeadline = { [unowned self] in keys.pendingDeadline }
        loop.onWake = { [unowned self] in deliver(keys.flush(at: clock.now)) }
        enterPagerMode()
        draw()
        loop.run()
        return endedBy
    }

    private func readKeys() {
        switch keys.read(terminal.fd, at: clock.now) {
        case .keys(let outputs, _): deliver(outputs)
        case .nothing: break
        case .closed: end(by: .sighup)
        }
    }

    private func deliver(_ outputs: [KeyDecoder.Output]) {
        for output in outputs {
            guard endedBy == nil, case .key(let key) = output else { continue }
            if pager.handle(key.bytes) == .quit { return stop() }
            draw()
        }
    }

    private func received(_ signal: UnixSignal, signals: SignalPipe) {
        switch signal {
        case .sigint, .sigquit:
            // As in the shell: Ctrl-C gives up a search being typed, else it is q.
            guard pager.isTypingSearch else { return stop() }
            pager.cancelSearch()
            draw()
        case .sigtstp:
            leaveAlternateScreen()
            terminal.restore()
            signals.stopUntilContinued()
            resume()
        case .sigcont:
            resume()
        case .sigwinch:
            let size = terminal.size
            pager.resize(rows: size.rows, columns: size.columns)
            draw()
        default:
            end(by: signal)
        }
    }

    /// Back after a stop: the pager's mode, the window's size and the page again.
    private func resume() {
        guard endedBy == nil else { return }
        enterPagerMode()
        let size = terminal.size
        pager.resize(rows: size.rows, columns: size.columns)
        draw()
    }

    /// Keys one at a time, no echo; Ctrl-C and Ctrl-Z still signal. The alternate screen keeps
    /// the pages out of the terminal's scrollback.
    private func enterPagerMode() {
        terminal.readKeysOneAtATime()
        if !onAlternateScreen {
            Terminal.write(Terminal.alternateScreenOn)
            onAlternateScreen = true
        }
    }

    private func draw() {
        Terminal.write(Pager.drawing(pager.screen()))
    }

    /// q or Ctrl-C: the normal screen comes back with the last page under the command line, so
    /// that what was read stays in view, as the shell leaves it.
    private func stop() {
        let lastPage = pager.lastPage()
        end(by: nil)
        if !lastPage.isEmpty { Terminal.write(lastPage.joined(separator: "\n") + "\n") }
    }

    /// Paging ends: the page and the kept text are zeroed, the screen and the terminal's mode
    /// are as they were.
    private func end(by signal: UnixSignal?) {
        endedBy = signal
        pager.wipe()
        pages.wipe()
        leaveAlternateScreen()
        terminal.restore()
        loop.stop()
    }

    private func leaveAlternateScreen() {
        guard onAlternateScreen else { return }
        onAlternateScreen = false
        Terminal.write(Terminal.alternateScreenOff)
    }
}

@available(*, unavailable)
extension CommandLinePager: Sendable {}
