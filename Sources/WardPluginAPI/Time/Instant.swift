/// A point in time on a `WardClock`, in nanoseconds from the clock's own origin.
///
/// Not wall time: the idle timer and the suspend guard only ever compare instants of one clock.
/// In the API because `PluginContext` speaks it (`now`, `schedule(at:)`); the clocks themselves
/// are WardSupport's `BootClock` and, for tests, SessionTestSupport's `ManualClock`.
public struct Instant: Comparable, Hashable, Sendable, CustomStringConvertible {
    public var nanoseconds: Int64

    public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }

    public static func < (a: Instant, b: Instant) -> Bool { a.nanoseconds < b.nanoseconds }
    public static func + (a: Instant, d: Duration) -> Instant { Instant(nanoseconds: a.nanoseconds &+ d.nanoseconds) }
    public static func - (a: Instant, d: Duration) -> Instant { Instant(nanoseconds: a.nanoseconds &- d.nanoseconds) }
    public static func - (a: Instant, b: Instant) -> Duration { .nanoseconds(a.nanoseconds &- b.nanoseconds) }

    public var description: String { "\(Duration.nanoseconds(nanoseconds))" }
}

extension Duration {
    /// Whole nanoseconds, saturating; what `ppoll` and `Instant` count in.
    public var nanoseconds: Int64 {
        let (s, atto) = components
        let (ns, overflow) = s.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return s < 0 ? .min : .max }
        return ns &+ atto / 1_000_000_000
    }
}
