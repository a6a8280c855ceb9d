/// What one event's way through the chain came to: where it ended up, and what the interceptors
/// asked for on the way.
///
/// One value, so that nobody acts on the outcome and forgets the requests: the session driver
/// performs the requests, in order, after it has acted on the outcome (or before, for a change
/// it announces). As `fireChannelRead` in swift-nio is one call, `send` is.
public struct ChainResult: Equatable, Sendable {
    /// Where the event ended up.
    public var outcome: InterceptorChain.Outcome
    /// What the interceptors asked for while the event passed, in the order they asked.
    public var requests: [ChainRequest]

    public init(outcome: InterceptorChain.Outcome, requests: [ChainRequest] = []) {
        self.outcome = outcome
        self.requests = requests
    }
}
