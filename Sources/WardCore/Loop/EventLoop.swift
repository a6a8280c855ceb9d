import CReadline
import Glibc

/// One thread, one `ppoll`: the terminal, the signal pipe, and the nearest deadline.
///
/// There are no periodic wake-ups. An idle Ward sleeps inside `ppoll` until a key, a signal or
/// a deadline, so a terminal left at the prompt costs no CPU and the idle lock fires when it
/// should, not on the next tick. The timeout is exact to the nanosecond (`ppoll`, not `poll`).
///
/// - Important: Not `Sendable`. Everything it calls runs on the thread that called `run()`.
public final class EventLoop {
    private struct Watch {
        let fd: Int32
        let onReadable: () -> Void
    }

    private let clock: any WardClock
    private var watches: [Watch] = []
    private var stopped = false

    /// How many times `ppoll` returned. Tests use it to show that nothing wakes an idle loop.
    public private(set) var wakeCount = 0

    /// The earliest moment something is due, or nil to sleep until input.
    public var nextDeadline: () -> Instant? = { nil }

    /// Called after every wake-up; fires whatever has come due.
    public var onWake: () -> Void = {}

    public init(clock: any WardClock) { self.clock = clock }

    /// Calls `onReadable` whenever `fd` has input, has hung up, or has failed.
    public func watch(_ fd: Int32, onReadable: @escaping () -> Void) {
        watches.removeAll { $0.fd == fd }
        watches.append(Watch(fd: fd, onReadable: onReadable))
    }

    /// Stops watching `fd`.
    public func unwatch(_ fd: Int32) { watches.removeAll { $0.fd == fd } }

    /// Runs until `stop()`.
    public func run() {
        stopped = false
        while !stopped { runOnce() }
    }

    /// Makes `run()` return after the current iteration.
    public func stop() { stopped = true }

    /// One wait and the work it brings. `run()` is this in a loop.
    public func runOnce() {
        let timeout: Int64
        if let deadline = nextDeadline() {
            timeout = max(0, (deadline - clock.now).nanoseconds)
        } else {
            timeout = -1
        }
        var fds = watches.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
        let ready = ward_ppoll(&fds, nfds_t(fds.count), timeout)
        wakeCount += 1
        if ready > 0 {
            let current = watches
            for (i, pfd) in fds.enumerated() where pfd.revents != 0 {
                // A handler may have unwatched a later descriptor; skip it then.
                guard watches.contains(where: { $0.fd == pfd.fd }) else { continue }
                current[i].onReadable()
                if stopped { return }
            }
        }
        onWake()
    }
}

@available(*, unavailable)
extension EventLoop: Sendable {}
