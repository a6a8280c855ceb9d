import Logging

/// An interceptor's only way to talk back to the session: the time, its deadline, a lock, a
/// notice. (A denial is a returned `Disposition.deny`.)
///
/// Only `InterceptorChain` makes one, one per interceptor. Requests are recorded, handed back by
/// `InterceptorChain.send` with the event's outcome, and performed by the session driver after
/// the event has passed the chain, never in the middle of it: a lock asked for
/// on a key press takes effect before the next key reaches readline.
///
/// - Important: Not `Sendable`. It belongs to the loop's thread, like the chain.
public final class PluginContext {
    private let clock: any WardClock
    private let currentSession: () -> SessionInfo
    /// Where what the interceptor asks for goes; the chain takes it after the event.
    private let requests: RequestQueue

    /// This interceptor's pending deadline, if any. The loop sleeps until the nearest one.
    public private(set) var deadline: Instant?

    /// For diagnostics. Names and counts only: never a key, a patient field or a secret.
    public let logger: Logger

    /// The name of the interceptor this context belongs to.
    public let name: String

    /// Why the interceptor could not start (`failedToStart`), if it said so.
    package private(set) var startFailure: String?

    /// `session` reads the driver's state: contexts see it, only the driver changes it.
    package init(
        name: String,
        clock: any WardClock,
        logger: Logger,
        requests: RequestQueue,
        session: @escaping () -> SessionInfo
    ) {
        self.name = name
        self.requests = requests
        self.clock = clock
        self.logger = logger
        self.currentSession = session
    }

    /// The session clock's current time.
    public var now: Instant { clock.now }

    /// Who is signed on now, and whether the session is locked.
    public var session: SessionInfo { currentSession() }

    /// Asks for `.timer` at `instant`, replacing any earlier request of this interceptor.
    public func schedule(at instant: Instant) { deadline = instant }

    /// Asks for `.timer` after `duration` from now.
    public func schedule(after duration: Duration) { deadline = now + duration }

    /// Withdraws this interceptor's deadline.
    public func cancelDeadline() { deadline = nil }

    /// Asks the session to lock: wipe everything loaded and demand the password.
    public func lock(reason: LockReason) { requests.append(.lock(reason)) }

    /// Asks the session to sign off entirely (a limit reached while locked).
    public func signOff(reason: SignOffReason) { requests.append(.signOff(reason)) }

    /// Shows one line above the prompt, leaving the line being typed intact.
    public func notice(_ text: String) { requests.append(.notice(text)) }

    /// Shows one line above the prompt saying the session will lock soon: a notice the terminal
    /// may colour and ring the bell for (the user's `[display]` choices), which a plain notice
    /// never does.
    public func warnOfLock(_ text: String) { requests.append(.lockWarning(text)) }

    /// Asks the terminal to report focus changes (`Event.focus`), or to stop. The session turns
    /// reports off by itself at a password prompt and on exit, and back on after.
    public func setFocusReporting(_ on: Bool) { requests.append(.focusReporting(on)) }

    /// Reports, from `added`, that the plugin could not start (a log it cannot open). Ward then
    /// stops before anyone signs on, naming the site file's line: fail closed.
    public func failedToStart(_ reason: String) { startFailure = reason }
}

@available(*, unavailable)
extension PluginContext: Sendable {}
