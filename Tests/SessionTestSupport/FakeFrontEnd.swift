import Glibc
import WardCore

/// A person at a terminal (`interactive`) or a script, for `SessionDriver`: reads its input from
/// a pipe, one line per answer or command, and logs what the driver asks it to show. A line
/// `!SIGHUP` (or another name) raises that signal for this session; `!long WORD` submits a line
/// that starts with WORD and is longer than `Line.maximumLength`.
///
/// A test that needs more than lines (keys, time passing, focus reports) sets `play`: it runs on
/// the driver's loop at the first input, the way a front end's own input handling would.
public final class FakeFrontEnd: SessionFrontEnd {
    public let user: String?
    public let isInteractive: Bool
    public let inputFD: Int32
    public let signals: TestSignals
    public var signOnSource: SignOnSource { isInteractive ? .terminal(tty: nil) : .batch(script: "fake") }
    public var nextDeadline: Instant? { nil }
    /// What the window measures when it changes size (SIGWINCH); set it before raising one.
    public var windowSize: (rows: Int, columns: Int) = (24, 80)
    /// What the driver asked the front end to do, in order (`"wiped"`: the lock wiped its holder).
    public private(set) var log: [String] = []
    /// Runs once, at the first input, before its lines are read.
    public var play: (() -> Void)?
    private unowned var driver: SessionDriver!
    private var asking: String?

    public init(interactive: Bool, input: Int32, signals: TestSignals, user: String = "alice") {
        self.user = user
        self.isInteractive = interactive
        self.inputFD = input
        self.signals = signals
    }

    public func attach(to driver: SessionDriver, wipeList: WipeList) {
        self.driver = driver
        wipeList.register("fake typeahead") { [unowned self] in log.append("wiped") }
    }

    public func open() {}
    public func close() {}
    public func wake() {}

    public func inputReadable() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = read(inputFD, &buffer, buffer.count)
        guard n > 0 else { return driver.signOff(.endOfInput) }
        if let play {
            self.play = nil
            play()
        }
        for text in String(decoding: buffer[0..<n], as: UTF8.self).split(separator: "\n").map(String.init) {
            guard !driver.hasEnded else { return }
            if text.hasPrefix("!long ") {
                let long = text.dropFirst(6) + " " + String(repeating: "x", count: Line.maximumLength)
                driver.proceed(after: driver.submit(Line(long)))
            } else if let name = text.split(separator: "!").first, text.hasPrefix("!") {
                signals.raise(Self.signal(named: String(name)))
                driver.catchUp()  // as a batch does between lines; a terminal, before the next key
            } else if asking == "password" {
                asking = nil
                driver.checkPassword { Password(bytes: Array(text.utf8)) }
            } else {
                driver.proceed(after: driver.submit(Line(text)))
            }
        }
    }

    static func signal(named name: String) -> UnixSignal {
        [UnixSignal.sighup, .sigterm, .sigint, .sigtstp, .sigcont, .sigusr1].first { "\($0)" == name }!
    }

    public func askUsername() { log.append("username?") }
    public func askPassword(user: String, lockedBecause reason: LockReason?) {
        asking = "password"
        log.append("password? \(user)" + (reason.map { " (\($0))" } ?? ""))
    }
    public func say(_ text: String) { log.append("say \(text)") }
    public func cannotSignOn(_ error: AuthError, atLockScreen: Bool) { log.append("cannot sign on") }
    public func notice(_ text: String) { log.append("notice \(text)") }
    public func lockWarning(_ text: String) { log.append("lock warning \(text)") }
    public func setFocusReporting(_ on: Bool) { log.append("focus \(on)") }
    public func showLockScreen(user: String, reason: LockReason) { log.append("lock screen \(reason)") }
    public func showShell(news: [String]) { log.append("shell") }
    public func showBanner(_ text: String) -> Bool {
        log.append("banner \(text)")
        return true
    }
    public func showPrompt(question: String?) { log.append("prompt") }
    public func refused(_ line: Line, message: String) { log.append("refused \(message)") }
    public func commandFinished(_ line: Line, _ outcome: SessionDriver.LineOutcome) {
        log.append("finished \(line.text)")
    }
    public func received(_ event: Lifecycle) {
        switch event {
        case .suspend: log.append("stop")
        case .resume: log.append("resumed")
        default: log.append("received \(event)")
        }
    }
    public func stopping(by signal: UnixSignal) { log.append("stopping by \(signal)") }
    public func ended(_ reason: SignOffReason, status: ExitStatus) { log.append("ended \(reason) \(status)") }
}
