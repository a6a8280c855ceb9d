import Logging

/// The ordered interceptors every event passes before the shell acts on it.
///
/// ```
///                  ┌──────────────── InterceptorChain ────────────────┐
///  tty bytes ──►   │  ┌───────────┐   ┌───────────┐   ┌─────────────┐ │   ──► readline (keys)
///  lines     ──►   │  │ idle-timer│──►│ audit-log │──►│suspend-guard│ │   ──► shell    (lines)
///  signals   ──►   │  └───────────┘   └───────────┘   └─────────────┘ │   ──► driver   (lifecycle)
///                  └──────▲──────────────────────────────────────────-┘
///  deadline  ──────────── └── .timer goes to the interceptor that scheduled it, and only to it
///
///  send(event) ──► ChainResult(outcome: delivered / consumed / denied, requests: [lock, notice…])
///                      └──► SessionDriver acts on the outcome, then performs the requests in order
/// ```
///
/// The order is the site file's order, as in a NIO pipeline or sudo.conf. Walk through one line,
/// `open 123`, with the chain above:
///
/// 1. The idle timer notes the activity and returns `.pass`.
/// 2. The audit log writes its record; if the write fails it calls `context.lock(reason:
///    .failure)` and returns `.deny(message)`, and the line goes no further.
/// 3. The suspend guard does not care about lines and returns `.pass`.
/// 4. `send` returns `.delivered(.line(open 123))` with the requests the interceptors made on the
///    way (a lock, a notice), in the order they were asked: every context writes to the chain's
///    one `RequestQueue`. `SessionDriver` runs the line, then performs the requests.
///
/// An interceptor that returns `.consume` ends the event's way; one that returns
/// `.replace(event)` hands `event` to the rest of the chain instead; one that returns
/// `.deny(message)` ends it with `.denied(message, by: name)`, naming who said no.
///
/// The chain holds no session state of its own: contexts read who is signed on from the session
/// driver (`readsSession(from:)`), which alone changes it.
///
/// - Important: Not `Sendable`: the chain, its contexts and its interceptors live on the loop's
///   thread.
public final class InterceptorChain {
    /// Where an event ended up.
    public enum Outcome: Equatable, Sendable {
        /// Passed every interceptor; this is the event to act on (perhaps replaced on the way).
        case delivered(Event)
        /// An interceptor swallowed it.
        case consumed
        /// An interceptor refused it, with a message for the user; `by` is its name, so the
        /// audit log records who said no. Nil only where the session driver refuses a line by
        /// itself, never from the chain.
        case denied(String, by: String?)
    }

    let clock: any WardClock
    private var links: [Link] = []
    private var currentSession: () -> SessionInfo
    /// What the plugins ask for while an event passes; `send` hands it back with the outcome.
    private let requests = RequestQueue()

    /// Interceptors that could not start (`PluginContext.failedToStart`), with why, in order.
    public private(set) var startFailures: [(plugin: String, reason: String)] = []
    private let logger: Logger

    /// `session`: who the session is before anyone signs on (its id), until a driver takes the
    /// session over (`readsSession(from:)`).
    public init(clock: any WardClock, session: SessionInfo, logger: Logger = Logger(label: "ward.chain")) {
        self.clock = clock
        self.currentSession = { session }
        self.logger = logger
    }

    /// Who is signed on, as the contexts read it.
    public var session: SessionInfo { currentSession() }

    /// From now on the contexts read the session from `source`: the session driver's own state.
    package func readsSession(from source: @escaping () -> SessionInfo) {
        currentSession = source
    }

    /// The interceptors' names, in order.
    public var names: [String] { links.map(\.interceptor.name) }

    /// Appends an interceptor at the end of the chain and tells it so; returns what it asked for
    /// as it was added (nothing, before anyone has signed on).
    @discardableResult
    public func append(_ interceptor: any Plugin) -> [ChainRequest] {
        var logger = self.logger
        logger[metadataKey: "plugin.name"] = "\(interceptor.name)"
        let context = PluginContext(name: interceptor.name, clock: clock, logger: logger, requests: requests) {
            [unowned self] in self.currentSession()
        }
        links.append(Link(interceptor: interceptor, context: context))
        interceptor.added(context: context)
        if let reason = context.startFailure { startFailures.append((interceptor.name, reason)) }
        return requests.take()
    }

    /// Passes `event` through the interceptors in order; returns where it ended up and what the
    /// interceptors asked for on the way, in order.
    ///
    /// Every key takes this way: Benchmarks/Engine measures it (five plugins, one key). Not
    /// `consuming Event`: beside the indirect `Disposition.replace`, Swift 6.3's debug build
    /// crashed in this loop (a bad pointer in `InterceptorChainTests`).
    public func send(_ event: Event) -> ChainResult {
        var event = event
        for link in links {
            switch link.interceptor.intercept(event, context: link.context) {
            case .pass: continue
            case .consume: return ChainResult(outcome: .consumed, requests: requests.take())
            case .replace(let replacement): event = replacement
            case .deny(let message):
                return ChainResult(outcome: .denied(message, by: link.interceptor.name), requests: requests.take())
            }
        }
        return ChainResult(outcome: .delivered(event), requests: requests.take())
    }

    /// The earliest deadline any interceptor is waiting for; the loop sleeps until then.
    public var nextDeadline: Instant? {
        var earliest: Instant?
        for link in links {
            if let d = link.context.deadline, earliest.map({ d < $0 }) ?? true { earliest = d }
        }
        return earliest
    }

    /// Sends `.timer` to each interceptor whose deadline has come, and only to it; returns what
    /// they asked for, in order.
    ///
    /// The deadline is withdrawn before the call, so an interceptor that wants another one
    /// schedules it again (as `IdleStateHandler` re-arms in swift-nio).
    public func fireDueTimers() -> [ChainRequest] {
        let now = clock.now
        for link in links {
            guard let d = link.context.deadline, d <= now else { continue }
            link.context.cancelDeadline()
            _ = link.interceptor.intercept(.timer, context: link.context)
        }
        return requests.take()
    }

    /// Tells every interceptor the session is over and the `status` it ends with, last first
    /// (as services stop in reverse). What they ask for on the way out is dropped: the session
    /// has ended. The session driver passes its exit status; a chain ended without a session
    /// (a test, a tool) ends with success.
    public func removeAll(status: ExitStatus = .success) {
        for link in links.reversed() { link.interceptor.removed(status: status, context: link.context) }
        links.removeAll()
    }
}

/// One plugin and its context. A class, so that walking the chain takes one reference per
/// plugin, not two: this walk is every key's way to readline.
private final class Link {
    let interceptor: any Plugin
    let context: PluginContext

    init(interceptor: any Plugin, context: PluginContext) {
        self.interceptor = interceptor
        self.context = context
    }
}

@available(*, unavailable)
extension InterceptorChain: Sendable {}
