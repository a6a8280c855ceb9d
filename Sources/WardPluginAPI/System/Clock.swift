import Glibc

/// A point in time on a `WardClock`, in nanoseconds from the clock's own origin.
///
/// Not wall time: the idle timer and the suspend guard only ever compare instants of one clock.
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

/// Where the session's time comes from.
///
/// Injected so that every time rule (idle lock, grace after Ctrl-Z, sign-out after a long lock)
/// is tested on a `ManualClock`, with no sleeping in unit tests.
public protocol WardClock: AnyObject {
    var now: Instant { get }
}

/// `CLOCK_BOOTTIME`: keeps counting while the machine sleeps, so a laptop closed for an hour
/// comes back locked. `CLOCK_MONOTONIC` would stop during sleep and forgive the absence.
public final class BootClock: WardClock {
    public init() {}

    public var now: Instant {
        var ts = timespec()
        clock_gettime(CLOCK_BOOTTIME, &ts)
        return Instant(nanoseconds: Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec))
    }
}

/// A clock that moves only when told to. For tests.
public final class ManualClock: WardClock {
    public var now: Instant

    public init(now: Instant = Instant(nanoseconds: 1_000_000_000)) { self.now = now }

    /// Moves time forward, as a sleeping laptop or a patient user would.
    public func advance(by duration: Duration) { now = now + duration }
}
