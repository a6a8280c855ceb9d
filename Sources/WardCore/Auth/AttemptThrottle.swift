/// Slows down password guessing at the sign-on prompt and the lock screen: after each failure a
/// longer wait before the next try (1 s, 2 s, 4 s, ... up to a cap), and after
/// `maxFailedAttempts` failures in a row, the verdict to sign out and exit 77.
///
/// Pure logic on an injected clock: it never sleeps. The session asks `nextAttempt()` before
/// showing the prompt and performs what it says (wait with the loop's deadline, ask, or end the
/// session); it reports each outcome with `failed()` or `succeeded()`.
///
/// Per process, and only the back-off: the lockout across processes (NIST 800-53 AC-7) is the
/// credential store's (`CredentialStore.signOn`, `LockoutPolicy`), which counts every wrong
/// password on the host under its lock. This throttle adds the growing delay between tries at
/// one terminal, which the store cannot give a person typing.
public struct AttemptThrottle {
    /// How many tries, and how long between them.
    public struct Policy: Sendable, Equatable {
        /// Failures in a row that end the session (the site's `max-failed-attempts`).
        public var maxFailedAttempts: Int
        /// The wait after the first failure; each further failure doubles it.
        public var firstDelay: Duration
        /// The longest wait between two tries.
        public var maxDelay: Duration

        public init(maxFailedAttempts: Int = 5, firstDelay: Duration = .seconds(1), maxDelay: Duration = .seconds(30)) {
            self.maxFailedAttempts = max(1, maxFailedAttempts)
            self.firstDelay = firstDelay
            self.maxDelay = maxDelay
        }
    }

    /// What to do before asking for the password.
    public enum Verdict: Equatable, Sendable {
        /// Ask now.
        case ask
        /// Too soon after a failure: ask after this long (ignore what is typed meanwhile).
        case wait(Duration)
        /// The tries are used up: sign out and exit with this code (77).
        case signOut(exitCode: Int32)
    }

    /// What to do after a wrong password.
    public enum FailureAction: Equatable, Sendable {
        /// Say the password was wrong; the next try is allowed after this delay.
        case retry(after: Duration)
        /// Say so, sign out and exit with this code (77): `maxFailedAttempts` failures in a row.
        case signOut(exitCode: Int32)
    }

    private enum State {
        /// `failures` in a row so far; no try before `notBefore` (nil: now).
        case open(failures: Int, notBefore: Instant?)
        /// Out of tries; every question gets "sign out".
        case exhausted(failures: Int)
    }

    /// sysexits' EX_NOPERM, the CLI contract's "authentication failed".
    public static let exitCode: Int32 = 77

    public let policy: Policy
    private let clock: any WardClock
    private var state: State = .open(failures: 0, notBefore: nil)

    public init(policy: Policy = Policy(), clock: any WardClock) {
        self.policy = policy
        self.clock = clock
    }

    /// Failures in a row so far.
    public var failures: Int {
        switch state {
        case .open(let failures, _), .exhausted(let failures): failures
        }
    }

    /// Whether the password may be asked for now.
    public func nextAttempt() -> Verdict {
        switch state {
        case .exhausted:
            return .signOut(exitCode: Self.exitCode)
        case .open(_, let notBefore?) where clock.now < notBefore:
            return .wait(notBefore - clock.now)
        case .open:
            return .ask
        }
    }

    /// A wrong password: returns how long until the next try, or that the session must end.
    public mutating func failed() -> FailureAction {
        switch state {
        case .exhausted(let failures):
            state = .exhausted(failures: failures + 1)
            return .signOut(exitCode: Self.exitCode)
        case .open(let failures, _):
            let count = failures + 1
            if count >= policy.maxFailedAttempts {
                state = .exhausted(failures: count)
                return .signOut(exitCode: Self.exitCode)
            }
            let delay = delay(afterFailures: count)
            state = .open(failures: count, notBefore: clock.now + delay)
            return .retry(after: delay)
        }
    }

    /// The right password: the count starts again. A throttle that is out of tries stays so
    /// (the session is ending).
    public mutating func succeeded() {
        if case .open = state { state = .open(failures: 0, notBefore: nil) }
    }

    /// `firstDelay · 2^(failures-1)`, at most `maxDelay`.
    func delay(afterFailures failures: Int) -> Duration {
        var delay = policy.firstDelay
        for _ in 1..<max(1, failures) {
            if delay >= policy.maxDelay { break }
            delay = delay * 2
        }
        return min(delay, policy.maxDelay)
    }
}
