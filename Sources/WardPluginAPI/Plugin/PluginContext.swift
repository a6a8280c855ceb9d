import Logging

/// An interceptor's only way to talk back to the session: the time, its deadline, a lock, a
/// notice, a denial.
///
/// Only `InterceptorChain` makes one, one per interceptor. Requests are recorded and performed by
/// the session after the event has passed the chain, never in the middle of it: a lock asked for
/// on a key press takes effect before the next key reaches readline.
///
/// - Important: Not `Sendable`. It belongs to the loop's thread, like the chain.
public final class PluginContext {
    /// The chain this context belongs to; unowned because the chain owns its contexts.
    private unowned let chain: any ChainState

    /// This interceptor's pending deadline, if any. The loop sleeps until the nearest one.
    public private(set) var deadline: Instant?

    /// For diagnostics. Names and counts only: never a key, a patient field or a secret.
    public let logger: Logger

    /// The name of the interceptor this context belongs to.
    public let name: String

    package init(chain: any ChainState, name: String, logger: Logger) {
        self.chain = chain
        self.name = name
        self.logger = logger
    }

    /// The session clock's current time.
    public var now: Instant { chain.clock.now }

    /// Who is signed on now, and whether the session is locked.
    public var session: SessionInfo { chain.session }

    /// Asks for `.timer` at `instant`, replacing any earlier request of this interceptor.
    public func schedule(at instant: Instant) { deadline = instant }

    /// Asks for `.timer` after `duration` from now.
    public func schedule(after duration: Duration) { deadline = now + duration }

    /// Withdraws this interceptor's deadline.
    public func cancelDeadline() { deadline = nil }

    /// Asks the session to lock: wipe everything loaded and demand the password.
    public func lock(reason: LockReason) { chain.requests.append(.lock(reason)) }

    /// Asks the session to sign off entirely (a limit reached while locked).
    public func signOff(reason: SignOffReason) { chain.requests.append(.signOff(reason)) }

    /// Shows one line above the prompt, leaving the line being typed intact.
    public func notice(_ text: String) { chain.requests.append(.notice(text)) }

    /// Asks the terminal to report focus changes (`Event.focus`), or to stop. The session turns
    /// reports off by itself at a password prompt and on exit, and back on after.
    public func setFocusReporting(_ on: Bool) { chain.requests.append(.focusReporting(on)) }

    /// Reports, from `added`, that the plugin could not start (a log it cannot open). Ward then
    /// stops before anyone signs on, naming the site file's line: fail closed.
    public func failedToStart(_ reason: String) { chain.startFailures.append((name, reason)) }

    /// Refuses the current line with a message for the user; the shell never sees it.
    ///
    /// Ends the event's way through the chain, as `.consume` does, whatever `intercept` returns.
    public func deny(_ message: String) { chain.denial = message }
}

@available(*, unavailable)
extension PluginContext: Sendable {}
