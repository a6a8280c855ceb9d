import Glibc
import WardPluginAPI

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
