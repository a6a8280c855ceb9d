import Glibc
import Logging

/// A script: lines from a file or a pipe in place of keys, under the same chain, audit and lock
/// rules as a person at the terminal.
///
/// ```
/// script lines ─► BatchInput ─► .line(source batch:FILE:LINE) ─► driver.run ─► shell ─► BatchReporter
/// ```
///
/// Sign-on and the lock are the driver's, as for a person; only the password's source differs.
/// A pipe that stalls past the idle timeout locks the session and wipes what it loaded. The next
/// line then signs on again from the password file before it runs; a password that came from a
/// descriptor cannot be read again, so the batch ends with 75 (EX_TEMPFAIL) and says which line
/// it stopped after.
///
/// Signals are handled between commands (`SessionDriver.catchUp`). SIGTERM and SIGHUP also wake
/// `TerminationWatchdog`, which interrupts a command that waits on the store or a plugin, so the
/// batch ends within a second: the audit log holds the line's record, then `abandoned`, the
/// signal and the sign-off. A line longer than `Line.maximumLength` stops the batch with 65
/// (EX_DATAERR) before it runs.
///
/// - Important: Not `Sendable`. It runs on the driver's loop thread.
public final class BatchFrontEnd: SessionFrontEnd {
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

    public var user: String? { options.user }
    public var isInteractive: Bool { false }
    public var inputFD: Int32 { input.fd }
    /// The script as given: its path, or `-` for standard input.
    public var signOnSource: SignOnSource {
        .batch(script: options.scriptName == Self.standardInputName ? "-" : options.scriptName)
    }
    public var nextDeadline: Instant? { nil }

    private let options: Options
    private let reporter: any BatchReporter
    private let stdout: StdoutBuffer?
    private unowned var driver: SessionDriver!
    private var input: BatchInput
    private var failures = 0
    /// The last line that ran, for messages that say where the batch stopped.
    private var lastLine: Line.Source?
    /// The line about to run, while the password is read again for it.
    private var nextLine: Line.Source?
    /// The command reading text of several lines (`CommandResult.readsText`): the script's next
    /// lines, up to one holding only `.`, are its text and never run as commands, even when the
    /// command has failed (a lock wiped it) before the end came.
    private var readingText: (line: Line, result: CommandResult)?

    /// - Parameter stdout: Standard output's buffer, owned so a lock can zero it (`StdoutBuffer`);
    ///   nil leaves the process's standard output alone (tests share one process). With a buffer,
    ///   a reader that goes away (`ward --batch x | head`) is a failed flush that ends the
    ///   session through the chain, instead of a SIGPIPE that kills Ward with nothing audited.
    public init(input fd: Int32, options: Options, reporter: any BatchReporter, stdout: StdoutBuffer?) {
        self.input = BatchInput(fd: fd)
        self.options = options
        self.reporter = reporter
        self.stdout = stdout
    }

    /// Registers standard output's buffer: a lock zeroes what the commands printed. Lines not
    /// yet run stay queued: they run after the next sign-on.
    public func attach(to driver: SessionDriver, wipeList: WipeList) {
        self.driver = driver
        if let stdout { wipeList.register(stdout, as: "standard output") }
    }

    public func open() {
        if stdout != nil { signal(SIGPIPE, SIG_IGN) }
    }

    public func close() {
        if stdout != nil { signal(SIGPIPE, SIG_DFL) }
    }

    public func wake() {}

    // MARK: Input

    public func inputReadable() {
        switch input.fill() {
        case .data, .endOfInput:
            break
        case .failed(let code):
            reporter.notice("cannot read \(options.scriptName): \(String(cString: strerror(code))).")
            return driver.signOff(.hangup, status: .ioError)
        }
        while !driver.hasEnded {
            let next: BatchInput.ScriptLine?
            do {
                next = try input.nextLine(keepingBlank: readingText != nil)
            } catch {
                let source = Line.Source.batch(file: options.scriptName, line: error.number)
                reporter.notice("\(source.place): \(error) The script stopped there.")
                driver.refuseLongLine(startingWith: error.start, source: source)
                guard !driver.hasEnded else { return }
                return driver.signOff(.lineTooLong, status: .dataError)
            }
            guard let line = next else { break }
            if readingText != nil {
                readText(line.text)
            } else {
                run(Line(line.text, source: .batch(file: options.scriptName, line: line.number)))
            }
            driver.catchUp()
        }
        if !driver.hasEnded, input.isFinished {
            // The script ended inside a command's text: the command fails, its text unsaved.
            if readingText != nil { finishText(driver.answer(nil)) }
            guard !driver.hasEnded else { return }
            driver.signOff(.endOfInput, status: failures > 0 ? .failure : .success)
        }
    }

    /// One line of the text a command reads; the line holding only `.` ends it.
    private func readText(_ text: String) {
        guard let reading = readingText else { return }
        if driver.isLocked, let place = lastLine { signOnAgain(before: Line(text, source: place)) }
        guard !driver.hasEnded else { return }
        let ends = text.trimmingBlanks == "."
        // Once the command has ended (failed, or wiped by a lock), the rest of its text is skipped.
        guard case .readsText = reading.result else {
            if ends { finishText(reading.result) }
            return
        }
        let result = driver.answer(text)
        if case .readsText = result {
            readingText = (reading.line, result)
        } else if ends {
            finishText(result)
        } else {
            readingText = (reading.line, result)
        }
    }

    /// The text's end: the command is reported, and the batch goes on as after any command.
    private func finishText(_ result: CommandResult) {
        guard let reading = readingText else { return }
        readingText = nil
        commandFinished(reading.line, .ran(result))
        guard !driver.hasEnded else { return }
        after(.ran(result))
    }

    private func run(_ line: Line) {
        if driver.isLocked { signOnAgain(before: line) }
        guard !driver.hasEnded else { return }
        lastLine = line.source
        reporter.commandStarted(line)
        let outcome = driver.submit(line)
        // Ward is ending: the signal, not the failure it caused, says how the batch ends.
        if CommandInterruption.requestedBy != nil { driver.handleSignals() }
        guard !driver.hasEnded else { return }
        if case .ran(.readsText) = outcome {
            readingText = (line, .readsText(""))
            return
        }
        after(outcome)
    }

    /// What follows a command: counting a failure, stopping, signing off, locking, or the next line.
    private func after(_ outcome: SessionDriver.LineOutcome) {
        if case .ran(.missingContext) = outcome {
            failures += 1
            return driver.signOff(.commandFailed, status: .dataError)
        }
        if Self.status(of: outcome) != .succeeded {
            failures += 1
            if options.onError == .stop { return driver.signOff(.commandFailed, status: .failure) }
        }
        driver.proceed(after: outcome, signOffStatus: failures > 0 ? .failure : .success)
    }

    private static func status(of outcome: SessionDriver.LineOutcome) -> BatchStatus {
        switch outcome {
        case .ran(.failed), .ran(.missingContext): .failed
        case .ran, .consumed: .succeeded
        case .refused(let message): .denied(message)
        }
    }

    /// Reports the command and writes out what it printed; a reader that went away ends the batch
    /// as SIGPIPE would (141), and output that cannot be written (a standard output that was
    /// closed, a full disk) ends it with 74 (EX_IOERR): its audit records are written already.
    /// A command that reads text is reported when its text has ended (`finishText`).
    public func commandFinished(_ line: Line, _ outcome: SessionDriver.LineOutcome) {
        if case .ran(.readsText) = outcome { return }
        reporter.commandFinished(line, status: Self.status(of: outcome))
        guard let failure = stdout?.flushFailure() else { return }
        if failure == EPIPE {
            reporter.notice("standard output was closed after \(line.source.place); stopping.")
            return driver.signOff(.hangup, status: .killed(by: SIGPIPE))
        }
        reporter.notice(
            "cannot write standard output after \(line.source.place): \(String(cString: strerror(failure))); stopping."
        )
        driver.signOff(.hangup, status: .ioError)
    }

    public func refused(_ line: Line, message: String) {}  // reported with the command's status

    public func showPrompt(question: String?) {}

    // MARK: Signing on

    /// `--user` is required in batch mode; the machine asks for a name only when it is missing.
    public func askUsername() {
        driver.signOff(.failedAttempts, status: .usage)
    }

    /// At sign-on the password is read at once. After a lock, a file is read again when the next
    /// line comes (`signOnAgain`); a descriptor cannot be, so the batch ends.
    public func askPassword(user: String, lockedBecause reason: LockReason?) {
        guard reason != nil else { return driver.checkPassword(options.password.read) }
        guard !options.password.canReadAgain else { return }
        reporter.notice(
            "the password came from \(options.password.name), which cannot be read again; "
                + "stopped after \(lastLine?.place ?? "sign-on"). Use --password-file to sign on again after a lock."
        )
        driver.signOff(.timeout, status: .lockedOut)
    }

    /// After a lock, before `line` runs: the password file is read again, as a person would type
    /// the password at the lock screen.
    private func signOnAgain(before line: Line) {
        nextLine = line.source
        defer { nextLine = nil }
        driver.checkPassword(options.password.read) {
            reporter.notice("signed on again from \(options.password.name) before \(line.source.place).")
        }
    }

    public func cannotSignOn(_ error: AuthError, atLockScreen: Bool) {
        guard atLockScreen else { return reporter.notice("cannot sign on: \(error)") }
        let place = nextLine?.place ?? "the next line"
        if case .wrongCredentials = error {
            reporter.notice(
                "the password in \(options.password.name) no longer signs on \(options.user); stopped before \(place)."
            )
        } else {
            reporter.notice("cannot sign on again before \(place): \(error)")
        }
    }

    // MARK: What the session shows

    public func say(_ text: String) { reporter.notice(text) }

    public func notice(_ text: String) { reporter.notice(text) }

    public func setFocusReporting(_ on: Bool) {}  // no terminal, no focus

    public func showShell(news: [String]) {}

    public func showLockScreen(user: String, reason: LockReason) {
        reporter.notice("locked (\(reason)) after \(lastLine?.place ?? "sign-on"); what was loaded is wiped.")
    }

    // MARK: Signals

    /// Ctrl-Z: what the commands printed is written out before the process stops.
    public func received(_ event: Lifecycle) {
        if case .suspend = event { stdout?.flush() }
    }

    public func stopping(by signal: UnixSignal) {
        reporter.notice("\(signal): stopped \(lastLine.map { "after \($0.place)" } ?? "before the first line").")
    }

    // MARK: Ending

    public func ended(_ reason: SignOffReason, status: ExitStatus) { stdout?.flush() }
}

@available(*, unavailable)
extension BatchFrontEnd: Sendable {}

extension String {
    /// Without the blanks (spaces, tabs) around it.
    fileprivate var trimmingBlanks: Substring {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        let start = drop(while: blank)
        return start[..<(start.lastIndex(where: { !blank($0) }).map(start.index(after:)) ?? start.startIndex)]
    }
}
