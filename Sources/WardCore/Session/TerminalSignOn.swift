import Glibc

/// What a person at a terminal meets outside the shell or the program, the same in the records
/// shell (`TerminalFrontEnd`) and in `ward exec` (`ExecFrontEnd`): the site's notice, the name
/// and password prompts, Ctrl-C and `fg` at a prompt, the screen cleared before the shell, a
/// stop's and the sign-off's last words.
///
/// Written once so that the two front ends cannot drift: a fix to how a password is read, or
/// to what is cleared at the end, reaches both.
///
/// The prompts are read in the terminal's canonical mode (`PromptReader`), never by readline,
/// which would keep the password. A key at a prompt reaches the chain as redacted activity.
///
/// - Important: Not `Sendable`. It runs on the driver's loop thread.
final class TerminalSignOn {
    private enum Answer {
        case username
        case password
    }

    let terminal: Terminal
    private let reader: PromptReader
    private let sshConnection: String?
    /// The prompt on screen, shown again after Ctrl-C or `fg`; nil once the shell has the terminal.
    private var shown: (text: String, kind: PromptReader.Kind)?
    /// What the next line typed answers; nil discards it (a wrong password's delay, the lock
    /// screen's text, the end).
    private var awaiting: Answer?

    init(terminal: Terminal, sshConnection: String?) {
        self.terminal = terminal
        self.reader = PromptReader(terminal: terminal)
        self.sshConnection = sshConnection
    }

    var terminalName: String? { ttyname(STDIN_FILENO).map { String(cString: $0) } }

    /// The terminal, or the SSH peer when the executable says the session is an SSH login.
    var signOnSource: SignOnSource { SignOnSource(tty: terminalName, sshConnection: sshConnection) }

    func askUsername() {
        ask("Username: ", kind: .visible, awaiting: .username)
    }

    func askPassword(user: String) {
        ask("Password for \(user): ", kind: .secret, awaiting: .password)
    }

    private func ask(_ text: String, kind: PromptReader.Kind, awaiting answer: Answer) {
        shown = (text, kind)
        awaiting = answer
        reader.show(text, kind: kind)
    }

    /// One line from the session (a wrong password, why it ends); nothing typed from now on
    /// answers a prompt, until the next one is shown.
    func say(_ text: String) {
        awaiting = nil
        Terminal.write(Sanitizer.text(text) + "\n")
    }

    /// The terminal is readable while no shell or program has it: the answer goes to `driver`,
    /// or what was typed is thrown away. Returns how many lines were thrown away.
    func inputReadable(driver: SessionDriver) -> Int {
        switch awaiting {
        case .username:
            guard let answer = reader.readAnswer() else {
                driver.signOff(.user)
                return 0
            }
            driver.send(.key(.redacted))
            driver.usernameEntered(String(decoding: answer, as: UTF8.self))
        case .password:
            guard var answer = reader.readAnswer() else {
                Terminal.write("\n")
                driver.signOff(.user)
                return 0
            }
            Terminal.write("\n")
            driver.send(.key(.redacted))  // activity the chain may count, never its value
            awaiting = nil
            driver.checkPassword {
                defer { explicit_bzero(&answer, answer.count) }
                return Password(bytes: answer)
            }
        case nil:
            return reader.discardTypeahead()
        }
        return 0
    }

    /// Throws away what was typed ahead; returns how many lines it held.
    func discardTypeahead() -> Int { reader.discardTypeahead() }

    /// Ctrl-C at a prompt: the kernel threw the partial line away (ISIG); ask again on a fresh line.
    func interrupted() {
        guard let shown else { return }
        Terminal.write("\n")
        reader.show(shown.text, kind: shown.kind)
    }

    /// Back from `fg` at a prompt: the prompt again, keeping what was typed since.
    func resumed() {
        guard let shown else { return }
        reader.show("\n" + shown.text, kind: shown.kind, flush: false)
    }

    /// The site's notice, its lines broken between words at the window's width (`WordWrap`).
    func showBanner(_ text: String) -> Bool {
        let wrapped = WordWrap.text(text, width: terminal.size.columns)
        return Terminal.writeChecked(wrapped.hasSuffix("\n") ? wrapped : wrapped + "\n")
    }

    /// Signed on or unlocked: a clean screen, then what sign-on learned.
    func showShell(news: [String]) {
        terminal.restore()
        shown = nil
        awaiting = nil
        Terminal.write(Terminal.clearScreenAndScrollback)
        for line in news { Terminal.write(Sanitizer.text(line) + "\n") }
    }

    /// The lock has wiped every holder of data: the screen and scrollback, then what is locked.
    /// `modesOff` first turns off what a program turned on, so the clearing reaches its screen.
    func showLockScreen(user: String, reason: LockReason, requestedBy: String?, modesOff: String = "") {
        awaiting = nil
        Terminal.write(modesOff + Terminal.clearScreenAndScrollback + Terminal.focusReportingOff)
        Terminal.write(LockScreen.headline(user: user, reason: reason, requestedBy: requestedBy))
    }

    /// Ctrl-Z: the screen is cleared before the process stops (`modesOff` as for the lock).
    func clearForStop(modesOff: String = "") {
        Terminal.write(modesOff + Terminal.clearScreenAndScrollback + Terminal.focusReportingOff)
    }

    /// Said once the terminal is handed back for a stop.
    static let stoppedMessage = "Ward is stopped and its screen cleared. Type 'fg' to go back.\n"

    /// The last words: the screen and scrollback cleared, because a clinician who signs off at
    /// a shared terminal must not leave a chart on it (not after failed attempts, so the reason
    /// stays readable), and the terminal restored.
    func signedOff(_ reason: SignOffReason, status: ExitStatus, modesOff: String = "") {
        awaiting = nil
        terminal.restore()
        var text = modesOff + Terminal.focusReportingOff
        if reason != .failedAttempts, status != .authenticationFailed { text += Terminal.clearScreenAndScrollback }
        Terminal.write(text + "Signed off.\n")
    }
}

@available(*, unavailable)
extension TerminalSignOn: Sendable {}
