/// Where the session's time comes from.
///
/// Injected so that every time rule (idle lock, grace after Ctrl-Z, sign-out after a long lock)
/// is tested on a `ManualClock`, with no sleeping in unit tests. In the API because the chain's
/// contexts read it; the clocks themselves live outside it.
public protocol WardClock: AnyObject {
    var now: Instant { get }
}
