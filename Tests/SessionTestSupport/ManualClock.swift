import WardCore

/// A clock that moves only when told to: every time rule (the idle lock, the grace after
/// Ctrl-Z, the sign-out after a long lock) is tested on one, with no sleeping.
public final class ManualClock: WardClock {
    public var now: Instant

    public init(now: Instant = Instant(nanoseconds: 1_000_000_000)) { self.now = now }

    /// Moves time forward, as a sleeping laptop or a patient user would.
    public func advance(by duration: Duration) { now = now + duration }
}
