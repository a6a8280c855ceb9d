import WardPluginAPI

/// Locks the session after `idle-timeout` without a key, with a notice `warn-before` it; and,
/// when the site sets `max-session`, after that long from sign-on however active the user is.
///
/// A plugin rather than loop code because sites reorder or drop it; WardCore holds no policy.
/// Every key counts, not only every finished line as with bash's `TMOUT`: a clinician typing a
/// long note is not idle. Output does not count: a screen that scrolls by itself is not a user.
///
/// Cheap on the key path, as swift-nio's `IdleStateHandler` is: a key only notes the time. The
/// one deadline the chain keeps for this plugin is left where it was; when it fires early (a key
/// came since), the timer re-arms for the next moment that matters. So a key costs a clock read
/// and two stores, and an idle session sleeps in `ppoll` until exactly the warning or the lock.
///
/// The clock is the session's (`CLOCK_BOOTTIME` in production), so a laptop asleep past the
/// deadline locks on the first wake-up, and the check for the lock comes before the check for the
/// warning: a session found far past its deadline locks at once instead of warning first.
///
/// Runs only while a user is signed on and the session is unlocked: it starts at `.signedOn` and
/// `.unlocked` and stops at `.locked` and `.signedOff`. The password prompt has its own timeout.
///
/// A long-running command is not idleness: the idle clock restarts when the prompt comes back
/// (`.session(.promptReady)`), not at the line that started the command.
public final class IdleTimer: Plugin {
    /// The name a site file uses.
    public static let name = "idle-timer"
    public static let summary = "Locks the session after idle-timeout without a key, with a warning warn-before it."

    /// The three limits this plugin enforces.
    public struct Limits: Equatable, Sendable {
        /// Lock after this long without a key or a line.
        public var timeout: Duration
        /// Show a notice this long before the idle lock (and before the max-session lock); zero
        /// for none. Shorter than `timeout`.
        public var warnBefore: Duration
        /// Lock this long after sign-on (or the last unlock), however active; nil when off.
        public var maxSession: Duration?

        public init(timeout: Duration, warnBefore: Duration = .zero, maxSession: Duration? = nil) {
            self.timeout = timeout
            self.warnBefore = warnBefore
            self.maxSession = maxSession
        }
    }

    /// The limits for whoever signs on: asked again at each `.signedOn`, because a
    /// `[user.NAME]` or `[role.NAME]` table may set other limits for them.
    private let limitsFor: (SessionInfo) -> Limits

    /// The limits in force since the last sign-on.
    public private(set) var limits: Limits

    /// True from sign-on or unlock until a lock or sign-off.
    public private(set) var isRunning = false

    /// The last key or line. The only thing a key changes.
    private var lastActivity = Instant(nanoseconds: 0)
    /// When the max-session limit started counting: the last sign-on or unlock.
    private var startedAt = Instant(nanoseconds: 0)
    /// The idle warning is on screen; a key clears the flag so it can be given again.
    private var warnedIdle = false
    /// The max-session warning has been given (activity cannot cancel that lock).
    private var warnedMaxSession = false

    /// A timer with fixed limits, whoever signs on.
    public convenience init(timeout: Duration, warnBefore: Duration = .zero, maxSession: Duration? = nil) {
        self.init(limits: Limits(timeout: timeout, warnBefore: warnBefore, maxSession: maxSession))
    }

    /// A timer with fixed limits, whoever signs on.
    public convenience init(limits: Limits) {
        self.init(limitsFor: { _ in limits }, initial: limits)
    }

    /// A timer that asks `limitsFor` for the signed-on user's limits at each sign-on.
    public init(limitsFor: @escaping (SessionInfo) -> Limits, initial: Limits) {
        self.limitsFor = limitsFor
        self.limits = initial
    }

    /// Starts at once when the chain is built for a session that is already signed on.
    public func added(context: PluginContext) {
        if context.session.user != nil, !context.session.isLocked { start(context: context, newSignOn: true) }
    }

    public func removed(status: ExitStatus, context: PluginContext) {
        stop(context: context)
    }

    public func intercept(_ event: Event, context: PluginContext) -> Disposition {
        switch event {
        case .key, .line, .session(.promptReady):
            // Cheap: no reschedule per keystroke. A deadline that fires early re-arms itself.
            // The prompt coming back counts too: a long command is not idleness.
            lastActivity = context.now
            warnedIdle = false
        case .timer:
            timerFired(context: context)
            return .consume
        case .session(.signedOn):
            start(context: context, newSignOn: true)
        case .session(.unlocked):
            start(context: context, newSignOn: false)
        case .session(.locked), .session(.signedOff):
            stop(context: context)
        default:
            break
        }
        return .pass  // activity and session changes are never ours to swallow
    }

    // MARK: Running

    private func start(context: PluginContext, newSignOn: Bool) {
        if newSignOn { limits = limitsFor(context.session) }
        let now = context.now
        lastActivity = now
        // Unlocking is signing on again with a password: the absolute limit counts from here,
        // or a max-session lock would come straight back after its own unlock.
        startedAt = now
        warnedIdle = false
        warnedMaxSession = false
        isRunning = true
        arm(context: context)
    }

    private func stop(context: PluginContext) {
        isRunning = false
        context.cancelDeadline()
    }

    /// Decides what the moment means, latest rule first: a lock that is due wins over a warning,
    /// so a clock that jumped far past the deadline (a sleeping laptop) locks without warning.
    private func timerFired(context: PluginContext) {
        guard isRunning else { return }
        let now = context.now
        if let end = maxSessionDeadline, now >= end {
            lock(.maxSession, context: context)
            return
        }
        if now >= idleDeadline {
            lock(.idle, context: context)
            return
        }
        if let end = maxSessionDeadline, !warnedMaxSession, limits.warnBefore > .zero,
            now >= end - limits.warnBefore, end <= idleDeadline
        {
            warnedMaxSession = true
            warnedIdle = true  // this lock comes first; one notice is enough
            context.warnOfLock("ward: session limit reached: locking in \(Self.phrase(end - now))")
        } else if !warnedIdle, limits.warnBefore > .zero, now >= idleDeadline - limits.warnBefore {
            warnedIdle = true
            context.warnOfLock("ward: locking in \(Self.phrase(idleDeadline - now))")
        }
        arm(context: context)
    }

    private func lock(_ reason: LockReason, context: PluginContext) {
        stop(context: context)
        context.lock(reason: reason)
    }

    private var idleDeadline: Instant { lastActivity + limits.timeout }

    private var maxSessionDeadline: Instant? { limits.maxSession.map { startedAt + $0 } }

    /// Schedules the next moment that matters: a warning not yet given, or a lock.
    private func arm(context: PluginContext) {
        var next = idleDeadline
        if limits.warnBefore > .zero, !warnedIdle { next = min(next, idleDeadline - limits.warnBefore) }
        if let end = maxSessionDeadline {
            next = min(next, end)
            if limits.warnBefore > .zero, !warnedMaxSession { next = min(next, end - limits.warnBefore) }
        }
        // A warning time already behind us (given, or skipped by a jump) must not spin the loop.
        context.schedule(at: max(next, context.now))
    }

    /// `30 s`, `1 min`, `2 min 30 s`: how long is left, rounded up to the second, as a person
    /// reads it in a one-line notice (`DurationText` writes `30s` for site files instead).
    public static func phrase(_ duration: Duration) -> String {
        let nanoseconds = max(duration.nanoseconds, 0)
        let seconds = (nanoseconds + 999_999_999) / 1_000_000_000
        if seconds < 60 { return "\(seconds) s" }
        let hours = seconds / 3600
        let minutes = seconds / 60 % 60
        let rest = seconds % 60
        var parts: [String] = []
        if hours > 0 { parts.append("\(hours) h") }
        if minutes > 0 { parts.append("\(minutes) min") }
        if rest > 0 { parts.append("\(rest) s") }
        return parts.joined(separator: " ")
    }
}
