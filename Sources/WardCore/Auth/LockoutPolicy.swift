/// When the credential store locks an account against password guessing (NIST 800-53 AC-7):
/// after `maxFailedAttempts` wrong passwords in a row, across every Ward process on the host,
/// sign-on and unlock are refused for `duration`, without the password being checked.
///
/// Why across processes: a per-process throttle is beaten by starting a new process for each
/// guess (`ward --batch` exits 77 in tens of milliseconds). The count lives in the credential
/// store, changed under its lock, so parallel guessers share one budget.
///
/// The price is that anyone who knows a user's name can lock them out for `duration`; that is
/// what AC-7 asks for, it is bounded in time, and `ward user unlock NAME` ends it at once.
public struct LockoutPolicy: Sendable, Equatable {
    /// Wrong passwords in a row that lock the account (the site's `max-failed-attempts`).
    public var maxFailedAttempts: Int
    /// How long the account stays locked (the site's `lockout`).
    public var duration: Duration

    public init(maxFailedAttempts: Int = 5, duration: Duration = .seconds(900)) {
        self.maxFailedAttempts = max(1, maxFailedAttempts)
        self.duration = duration
    }

    /// The lock's end for a lock that starts at `time` (wall-clock seconds since 1970), rounded up
    /// to the second.
    public func lockedUntil(from time: Int64) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return time + seconds + (attoseconds > 0 ? 1 : 0)
    }
}

extension SessionPolicy {
    /// The credential store's lockout rule: `max-failed-attempts` and `lockout`.
    public var lockoutPolicy: LockoutPolicy {
        LockoutPolicy(maxFailedAttempts: maxFailedAttempts, duration: lockout)
    }
}
