import Glibc
import Logging
import WardCore

/// A session for the guards: the real `SessionDriver` with `FakeFrontEnd`, a real chain and
/// credential store, on a `ManualClock`. A test's steps run on the driver's loop (`session`),
/// as a front end's input handling would, and assert what the session did: the front end's log
/// (`log`: the lock's wipe, lock screen and password prompt, the notices, the focus reports,
/// the ending).
///
/// Time passes as the loop would see it: `wait` moves the clock to each deadline on the way and
/// lets the driver fire what is due, as `ppoll` returning at the deadline would. The session's
/// own deadlines (the password prompt's, the locked session's sign-out) are set beyond any test,
/// so the guards' deadlines are the only ones.
///
/// A product (`SessionTestSupport`), so that a plugin written outside Ward is tested as the
/// built-in guards are.
public final class GuardHarness {
    public let clock = ManualClock()
    public let chain: InterceptorChain
    /// Who signs on.
    public let user: String
    /// How many times the loop woke for a deadline.
    public private(set) var wakes = 0
    private let signals = TestSignals()
    private let runner = ScriptedRunner()
    private let credentials: TestCredentials
    private let frontEnd: FakeFrontEnd
    private let driver: SessionDriver
    private let input: Int32
    /// Where `log` starts: what came before was taken.
    private var taken = 0

    /// Runs a session whose chain holds `plugins`, signed on as `user` first unless `signedOn`
    /// is false, with `body`'s steps; the session signs off (end of input) after them, unless
    /// it ended already.
    public static func session(
        _ plugins: any Plugin...,
        user: String = "demo",
        signedOn: Bool = true,
        _ body: (GuardHarness) throws -> Void
    ) throws {
        let h = try GuardHarness(plugins, user: user)
        defer { Glibc.close(h.input) }
        var failure: (any Error)?
        var played = false
        try withoutActuallyEscaping(body) { body in
            h.frontEnd.play = { [unowned h] in
                played = true
                if signedOn {
                    h.signOn()
                    _ = h.take()
                }
                do { try body(h) } catch { failure = error }
            }
            _ = try h.driver.run()
        }
        if let failure { throw failure }
        if !played { throw NotPlayed() }
    }

    /// The session ended before the test's steps ran (a plugin that refused to start, a
    /// sign-on that failed): nothing the test meant to check was checked.
    public struct NotPlayed: Error, CustomStringConvertible {
        public var description: String { "the session ended before the test's steps ran" }
    }

    private init(_ plugins: [any Plugin], user: String) throws {
        self.user = user
        credentials = try TestCredentials(users: [user: .clinician])
        chain = InterceptorChain(clock: clock, session: SessionInfo(id: "test"))
        for plugin in plugins {
            precondition(chain.append(plugin).isEmpty, "nobody is signed on: a plugin added now asks for nothing")
        }
        // One byte of input, then its end: the first read runs the test's steps, the next one
        // signs off.
        var fds: [Int32] = [-1, -1]
        precondition(pipe(&fds) == 0)
        var newline = UInt8(ascii: "\n")
        _ = Glibc.write(fds[1], &newline, 1)
        Glibc.close(fds[1])
        input = fds[0]
        frontEnd = FakeFrontEnd(interactive: true, input: input, signals: signals, user: user)
        let never = Duration.seconds(100 * 365 * 86_400)
        driver = SessionDriver(
            frontEnd: frontEnd,
            clock: clock,
            chain: chain,
            runner: runner,
            credentials: credentials.store,
            policy: SessionMachine.Policy(passwordTimeout: never, signoutAfter: never),
            logger: Logger(label: "test"),
            signals: signals.install
        )
    }

    // MARK: What the user and the system do

    /// The right password, at the sign-on prompt.
    public func signOn() {
        driver.checkPassword { Password(bytes: Array(TestCredentials.password.utf8)) }
    }

    /// The right password, at the lock screen.
    public func unlock() {
        driver.checkPassword { Password(bytes: Array(TestCredentials.password.utf8)) }
    }

    /// The user locks (`lock`), or the session does for `reason`.
    public func lock(_ reason: LockReason = .user) {
        driver.lock(reason)
    }

    public func signOff(_ reason: SignOffReason = .user) {
        driver.signOff(reason)
    }

    /// A key, through the chain, as the terminal front end sends it.
    public func type(_ text: String) {
        driver.send(.key(KeyPress(Array(text.utf8))))
    }

    /// `event` through the chain, the requests performed; where it ended up.
    @discardableResult
    public func send(_ event: Event) -> InterceptorChain.Outcome {
        driver.send(event)
    }

    /// A line through the chain and the shell; the command takes `taking`, during which the
    /// loop is busy and nothing fires.
    public func run(_ line: Line, taking: Duration = .zero) {
        runner.onRun = { [clock] _ in clock.advance(by: taking) }
        _ = driver.submit(line)
        runner.onRun = nil
    }

    /// The prompt is back after a command.
    public func showPrompt() {
        driver.showPrompt()
    }

    /// Ctrl-Z, `away` on the boot clock stopped, then `fg`: the signals, as the session gets them.
    public func suspend(away: Duration) {
        signals.whileStopped = { [clock] in clock.advance(by: away) }
        signal(.sigtstp, .sigcont)
        signals.whileStopped = {}
    }

    /// `signals` arrive, and the loop reads them.
    public func signal(_ signals: UnixSignal...) {
        for signal in signals { self.signals.raise(signal) }
        driver.handleSignals()
    }

    /// The window changes to `rows` by `columns` (SIGWINCH), and the loop reads the signal.
    public func resize(rows: Int, columns: Int) {
        frontEnd.windowSize = (rows, columns)
        signal(.sigwinch)
    }

    /// A plugin added to the chain while someone is signed on. What it asks for at once is
    /// `append`'s answer, which no driver call performs: the test checks it as requests. What
    /// it asks for later (a deadline's lock) the driver performs.
    public func add(_ plugin: any Plugin) -> [ChainRequest] {
        chain.append(plugin)
    }

    // MARK: Time

    /// Lets `duration` pass with the loop running: it wakes at every deadline on the way, as
    /// `ppoll` would, and the driver fires what is due.
    public func wait(_ duration: Duration) {
        let end = clock.now + duration
        var guardCount = 0
        while let deadline = chain.nextDeadline, deadline <= end {
            guardCount += 1
            precondition(guardCount < 10_000, "the deadline never moves: a busy loop")
            if deadline > clock.now { clock.now = deadline }
            wakes += 1
            driver.catchUp()
        }
        clock.now = end
    }

    /// Lets `duration` pass with nothing running (a laptop asleep, a stopped process), then wakes
    /// the loop once, as the first `ppoll` return after the machine resumes would.
    public func sleepThenWake(_ duration: Duration) {
        clock.advance(by: duration)
        wakes += 1
        driver.catchUp()
    }

    // MARK: What the session did

    /// What the driver had the front end do since the last `take()`, in order.
    public var log: [String] { Array(frontEnd.log[taken...]) }

    /// The log so far; `log` starts afresh after it.
    public func take() -> [String] {
        defer { taken = frontEnd.log.count }
        return log
    }

    /// What a lock for `reason` does, as `log` shows it: the front end's holder wiped (after the
    /// shell's), the lock screen, the password asked for.
    public func locked(_ reason: LockReason) -> [String] {
        ["wiped", "lock screen \(reason)", "password? \(user) (\(reason))"]
    }

    /// The locks the session performed since the last `take()`: each a whole `locked(_:)`.
    public var locks: [LockReason] {
        let log = self.log
        return log.indices.compactMap { i in
            guard log[i] == "wiped", i + 1 < log.count, log[i + 1].hasPrefix("lock screen "),
                let reason = LockReason(rawValue: String(log[i + 1].dropFirst("lock screen ".count))),
                Array(log[i...].prefix(3)) == locked(reason)
            else { return nil }
            return reason
        }
    }

    /// The notices shown since the last `take()`.
    public var notices: [String] {
        log.compactMap { $0.hasPrefix("notice ") ? String($0.dropFirst("notice ".count)) : nil }
    }

    /// The lock warnings shown since the last `take()` (`PluginContext.warnOfLock`: the terminal
    /// colours them and rings the bell for them, as the user asks).
    public var lockWarnings: [String] {
        log.compactMap { $0.hasPrefix("lock warning ") ? String($0.dropFirst("lock warning ".count)) : nil }
    }

    /// How many times the lock wiped the shell, since the session began.
    public var shellWipes: Int { runner.wipes }

    /// The session has ended.
    public var hasEnded: Bool { driver.hasEnded }

    /// Signed on and not locked.
    public var isSignedOn: Bool { driver.isSignedOn }
}
