import Logging

/// The ordered interceptors every event passes before the shell acts on it.
///
/// ```
///                  ┌──────────────── InterceptorChain ────────────────┐
///  tty bytes ──►   │  ┌───────────┐   ┌───────────┐   ┌─────────────┐ │   ──► readline (keys)
///  lines     ──►   │  │ idle-timer│──►│ audit-log │──►│suspend-guard│ │   ──► shell    (lines)
///  signals   ──►   │  └───────────┘   └───────────┘   └─────────────┘ │   ──► session  (lifecycle)
///                  └──────▲──────────────────────────────────────────-┘
///  deadline  ──────────── └── .timer goes to the interceptor that scheduled it, and only to it
/// ```
///
/// The order is the site file's order, as in a NIO pipeline or sudo.conf. Walk through one line,
/// `open 123`, with the chain above:
///
/// 1. The idle timer notes the activity and returns `.pass`.
/// 2. The audit log writes its record; if the write fails it calls `context.deny(_:)` and
///    `context.lock(reason: .failure)`, and the line goes no further.
/// 3. The suspend guard does not care about lines and returns `.pass`.
/// 4. `dispatch` returns `.delivered(.line(open 123))`; the session runs it, then performs the
///    requests the interceptors made (`takeRequests()`): a lock, a notice.
///
/// An interceptor that returns `.consume` ends the event's way; one that returns
/// `.replace(event)` hands `event` to the rest of the chain instead.
///
/// - Important: Not `Sendable`: the chain, its contexts and its interceptors live on the loop's
///   thread.
public final class InterceptorChain: ChainState {
    /// Where an event ended up.
    public enum Outcome: Equatable, Sendable {
        /// Passed every interceptor; this is the event to act on (perhaps replaced on the way).
        case delivered(Event)
        /// An interceptor swallowed it.
        case consumed
        /// An interceptor refused it, with a message for the user.
        case denied(String)
    }

    package let clock: any WardClock
    private var links: [(interceptor: any Plugin, context: PluginContext)] = []
    package var requests: [ChainRequest] = []
    package var denial: String?

    /// Interceptors that could not start (`PluginContext.failedToStart`), with why, in order.
    public package(set) var startFailures: [(plugin: String, reason: String)] = []
    private let logger: Logger

    /// Who is signed on. The session updates it before it announces a change.
    public var session: SessionInfo

    public init(clock: any WardClock, session: SessionInfo, logger: Logger = Logger(label: "ward.chain")) {
        self.clock = clock
        self.session = session
        self.logger = logger
    }

    /// The interceptors' names, in order.
    public var names: [String] { links.map(\.interceptor.name) }

    /// Appends an interceptor at the end of the chain and tells it so.
    public func append(_ interceptor: any Plugin) {
        var logger = self.logger
        logger[metadataKey: "plugin.name"] = "\(interceptor.name)"
        let context = PluginContext(chain: self, name: interceptor.name, logger: logger)
        links.append((interceptor, context))
        interceptor.added(context: context)
    }

    /// Passes `event` through the interceptors in order.
    public func dispatch(_ event: Event) -> Outcome {
        var event = event
        for link in links {
            let disposition = link.interceptor.intercept(event, context: link.context)
            if let message = denial {
                denial = nil
                return .denied(message)
            }
            switch disposition {
            case .pass: continue
            case .consume: return .consumed
            case .replace(let replacement): event = replacement
            }
        }
        return .delivered(event)
    }

    /// Tells every interceptor that the session changed, with `session` brought up to date
    /// first, so the audit log's record of a sign-on already names the user. After a sign-off
    /// nobody is signed on.
    public func announce(_ event: SessionEvent) {
        switch event {
        case .signedOn(let user, let role):
            session.user = user
            session.role = role
            session.isLocked = false
        case .locked:
            session.isLocked = true
        case .unlocked:
            session.isLocked = false
        case .signOnFailed, .signedOff, .denied, .abandoned, .accessed, .promptReady:
            break
        }
        _ = dispatch(.session(event))
        if case .signedOff = event {
            session.user = nil
            session.role = nil
        }
    }

    /// The earliest deadline any interceptor is waiting for; the loop sleeps until then.
    public var nextDeadline: Instant? {
        var earliest: Instant?
        for link in links {
            if let d = link.context.deadline, earliest.map({ d < $0 }) ?? true { earliest = d }
        }
        return earliest
    }

    /// Sends `.timer` to each interceptor whose deadline has come, and only to it.
    ///
    /// The deadline is withdrawn before the call, so an interceptor that wants another one
    /// schedules it again (as `IdleStateHandler` re-arms in swift-nio).
    public func fireDueTimers() {
        let now = clock.now
        for link in links {
            guard let d = link.context.deadline, d <= now else { continue }
            link.context.cancelDeadline()
            _ = link.interceptor.intercept(.timer, context: link.context)
            denial = nil
        }
    }

    /// What the interceptors asked for since the last call, in the order they asked.
    public func takeRequests() -> [ChainRequest] {
        defer { requests.removeAll(keepingCapacity: true) }
        return requests
    }

    /// Tells every interceptor the session is over, last first (as services stop in reverse).
    public func removeAll() {
        for link in links.reversed() { link.interceptor.removed(context: link.context) }
        links.removeAll()
    }
}

@available(*, unavailable)
extension InterceptorChain: Sendable {}
