/// Who may use the session, and when: sign-on, lock, unlock, sign-off, as a state machine.
///
/// Pure: it never reads the terminal, sleeps or checks a password. Each input is a `mutating
/// func` that moves the state and returns the actions for `SessionDriver` to perform, in
/// order (the swift-service-lifecycle pattern). So every rule is tested on a `ManualClock`:
/// the growing delay between wrong passwords, the exit after too many, the password prompt's
/// own timeout, and the sign-off after `signoutAfter` locked.
///
/// ```
///  signingOn ──right password──► signedOn ──lock(reason)──► locked ──right password──► signedOn
///     │  wrong: wait, ask again     │                          │  wrong: wait, ask again
///     └─ too many / timeout ──► ended ◄── logout, Ctrl-D ──────┴─ Ctrl-D, too many, signoutAfter
/// ```
public struct SessionMachine {
    public enum State: Equatable, Sendable {
        /// Asking who is there; `user` once the name is known.
        case signingOn(user: String?)
        case signedOn(user: String, role: Role)
        /// Wiped, asking `user` for the password since `since`.
        case locked(user: String, role: Role, reason: LockReason, since: Instant)
        case ended(SignOffReason)
    }

    public enum Action: Equatable, Sendable {
        /// Ask for a user name (echo on).
        case askUsername
        /// Ask for the password (no echo). `reason` is nil at sign-on, the lock's cause at the lock screen.
        case askPassword(user: String, lockedBecause: LockReason?)
        /// Tell the chain (and so the audit log) what happened.
        case announce(SessionEvent)
        /// Wipe everything loaded, clear the screen and scrollback, show the lock screen.
        case wipe(user: String, reason: LockReason)
        /// One line for the user.
        case say(String)
        /// Signed on or unlocked: give the shell its prompt back.
        case resumeShell
        /// End the process with this status.
        case end(SignOffReason, status: ExitStatus)
    }

    /// The rules that apply.
    public struct Policy: Equatable, Sendable {
        public var passwordTimeout: Duration
        public var signoutAfter: Duration
        public var throttle: AttemptThrottle.Policy

        public init(
            passwordTimeout: Duration = .seconds(60),
            signoutAfter: Duration = .seconds(900),
            throttle: AttemptThrottle.Policy = .init()
        ) {
            self.passwordTimeout = passwordTimeout
            self.signoutAfter = signoutAfter
            self.throttle = throttle
        }
    }

    public private(set) var state: State = .signingOn(user: nil)
    private let policy: Policy
    private let clock: any WardClock
    private var throttle: AttemptThrottle
    /// No prompt before this (a wrong password's delay).
    private var retryAt: Instant?
    /// The sign-on prompt gives up at this time.
    private var promptExpiresAt: Instant?

    public init(policy: Policy, clock: any WardClock) {
        self.policy = policy
        self.clock = clock
        self.throttle = AttemptThrottle(policy: policy.throttle, clock: clock)
    }

    /// The next moment `deadlinePassed()` has something to do.
    public var nextDeadline: Instant? {
        let earliest = retryAt.earliest(promptExpiresAt)
        guard case .locked(_, _, _, let since) = state else { return earliest }
        return earliest.earliest(since + policy.signoutAfter)
    }

    /// The process started; `user` from `--user`, if given.
    public mutating func start(user: String?) -> [Action] {
        state = .signingOn(user: user)
        promptExpiresAt = clock.now + policy.passwordTimeout
        return [user.map { .askPassword(user: $0, lockedBecause: nil) } ?? .askUsername]
    }

    public mutating func usernameEntered(_ name: String) -> [Action] {
        guard case .signingOn = state else { return [] }
        guard !name.isEmpty else { return [.askUsername] }
        state = .signingOn(user: name)
        return [.askPassword(user: name, lockedBecause: nil)]
    }

    /// The password was checked: `role` is the user's role when it was right, nil when not;
    /// `refusal` then says why (a wrong password, or no such user: the name is not announced).
    public mutating func passwordChecked(role: Role?, refusal: SignOnFailure = .wrongPassword) -> [Action] {
        switch state {
        case .signingOn(let user?):
            guard let role else { return failed(user: user, refusal: refusal, atLockScreen: false) }
            throttle.succeeded()
            promptExpiresAt = nil
            state = .signedOn(user: user, role: role)
            return [.announce(.signedOn(user: user, role: role)), .resumeShell]
        case .locked(let user, let lockedRole, _, _):
            guard role != nil else { return failed(user: user, refusal: refusal, atLockScreen: true) }
            throttle.succeeded()
            state = .signedOn(user: user, role: lockedRole)
            return [.announce(.unlocked(user: user)), .resumeShell]
        default:
            return []
        }
    }

    private mutating func failed(user: String, refusal: SignOnFailure, atLockScreen: Bool) -> [Action] {
        let known = refusal != .unknownUser
        var actions: [Action] = [
            .announce(
                atLockScreen
                    ? .unlockFailed(user: user, reason: refusal)
                    : .signOnFailed(user: known ? user : nil, reason: refusal)
            )
        ]
        switch throttle.failed() {
        case .retry(let delay):
            retryAt = clock.now + delay
            actions.append(.say(atLockScreen ? "Wrong password." : "Wrong user name or password."))
            if !atLockScreen { state = .signingOn(user: nil) }
        case .signOut(let status):
            actions.append(.say("Too many wrong passwords."))
            actions += end(.failedAttempts, status: ExitStatus(rawValue: status))
        }
        return actions
    }

    /// A plugin or the user asked to lock. Only a signed-on session locks; a second lock while
    /// locked changes nothing.
    public mutating func lock(_ reason: LockReason) -> [Action] {
        guard case .signedOn(let user, let role) = state else { return [] }
        state = .locked(user: user, role: role, reason: reason, since: clock.now)
        retryAt = nil
        return [
            .announce(.locked(reason)), .wipe(user: user, reason: reason),
            .askPassword(user: user, lockedBecause: reason),
        ]
    }

    /// A deadline from `nextDeadline` has come.
    public mutating func deadlinePassed() -> [Action] {
        let now = clock.now
        if case .locked(_, _, _, let since) = state, now >= since + policy.signoutAfter {
            return [.say("Locked longer than \(DurationText.format(policy.signoutAfter)): signing off.")]
                + end(.timeout, status: .lockedOut)
        }
        if let expires = promptExpiresAt, now >= expires, case .signingOn = state {
            return [.say("No sign-on within \(DurationText.format(policy.passwordTimeout)).")]
                + end(.timeout, status: .authenticationFailed)
        }
        if let at = retryAt, now >= at {
            retryAt = nil
            switch state {
            case .signingOn: return [.askUsername]
            case .locked(let user, _, let reason, _): return [.askPassword(user: user, lockedBecause: reason)]
            default: return []
            }
        }
        return []
    }

    /// Whether the prompt is held back (a wrong password's delay): input is discarded meanwhile.
    public var isWaiting: Bool { retryAt != nil }

    /// Ctrl-D at a prompt, `logout`, or the terminal closing: the session ends.
    public mutating func signOff(_ reason: SignOffReason, status: ExitStatus = .success) -> [Action] {
        if case .ended = state { return [] }
        return end(reason, status: status)
    }

    private mutating func end(_ reason: SignOffReason, status: ExitStatus) -> [Action] {
        let wasSignedOn: Bool
        switch state {
        case .signedOn, .locked: wasSignedOn = true
        default: wasSignedOn = false
        }
        state = .ended(reason)
        retryAt = nil
        promptExpiresAt = nil
        return (wasSignedOn ? [.announce(.signedOff(reason))] : []) + [.end(reason, status: status)]
    }
}
