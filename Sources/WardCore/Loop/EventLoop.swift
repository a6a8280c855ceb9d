import CWardSystem
import Glibc

/// One thread, one `ppoll`: the terminal, the signal pipe (and, for `ward exec`, the program's
/// pseudo-terminal and process), and the nearest deadline.
///
/// There are no periodic wake-ups. An idle Ward sleeps inside `ppoll` until a key, a signal or
/// a deadline, so a terminal left at the prompt costs no CPU and the idle lock fires when it
/// should, not on the next tick.
///
/// On the boot clock the deadline is a `CLOCK_BOOTTIME` timerfd in the poll set, armed at the
/// absolute deadline. A ppoll timeout would be late by about 0.1% of the wait (10 ms on a 10 s
/// wait: the kernel's timer slack) and would run on `CLOCK_MONOTONIC`, which stops while the
/// machine sleeps: a laptop closed for an hour would keep the chart on screen for the rest of
/// the idle timeout after it wakes. Other clocks (a `ManualClock` in tests) use the timeout.
///
/// - Important: Not `Sendable`. Everything it calls runs on the thread that called `run()`.
public final class EventLoop {
    private struct Watch {
        let fd: Int32
        /// `POLLIN`, or `POLLOUT` for a writer waiting for room.
        let events: Int16
        let onReadable: () -> Void
    }

    private let clock: any WardClock
    private var watches: [Watch] = []
    private var stopped = false
    /// The boot-time timer, or -1 when the clock is not the boot clock.
    private let timer: Int32
    private var armedFor: Instant?

    /// How many times `ppoll` returned. Tests use it to show that nothing wakes an idle loop.
    public private(set) var wakeCount = 0

    /// The earliest moment something is due, or nil to sleep until input.
    public var nextDeadline: () -> Instant? = { nil }

    /// Called after every wake-up; fires whatever has come due.
    public var onWake: () -> Void = {}

    public init(clock: any WardClock) {
        self.clock = clock
        self.timer = clock is BootClock ? ward_boot_timer_create() : -1
    }

    deinit {
        if timer >= 0 { close(timer) }
    }

    /// Calls `onReadable` whenever `fd` has input, has hung up, or has failed.
    public func watch(_ fd: Int32, onReadable: @escaping () -> Void) {
        watches.removeAll { $0.fd == fd && $0.events == Self.readable }
        watches.append(Watch(fd: fd, events: Self.readable, onReadable: onReadable))
    }

    /// Calls `onWritable` whenever `fd` has room to write (or has hung up), until
    /// `unwatchWritable(fd)`: for a writer that must not block the loop (keys for a program
    /// that is not reading them yet).
    public func watchWritable(_ fd: Int32, onWritable: @escaping () -> Void) {
        watches.removeAll { $0.fd == fd && $0.events == Self.writable }
        watches.append(Watch(fd: fd, events: Self.writable, onReadable: onWritable))
    }

    /// Stops watching `fd` for input.
    public func unwatch(_ fd: Int32) { watches.removeAll { $0.fd == fd && $0.events == Self.readable } }

    /// Stops watching `fd` for room to write.
    public func unwatchWritable(_ fd: Int32) { watches.removeAll { $0.fd == fd && $0.events == Self.writable } }

    private static let readable = Int16(POLLIN)
    private static let writable = Int16(POLLOUT)

    /// Runs until `stop()`.
    public func run() {
        stopped = false
        while !stopped { runOnce() }
    }

    /// Makes `run()` return after the current iteration.
    public func stop() { stopped = true }

    /// One wait and the work it brings. `run()` is this in a loop.
    public func runOnce() {
        let deadline = nextDeadline()
        var timeout: Int64 = -1
        var fds = watches.map { pollfd(fd: $0.fd, events: $0.events, revents: 0) }
        if timer >= 0 {
            if deadline != armedFor {
                ward_boot_timer_arm(timer, deadline.map { max(1, $0.nanoseconds) } ?? 0)
                armedFor = deadline
            }
            fds.append(pollfd(fd: timer, events: Int16(POLLIN), revents: 0))
        } else if let deadline {
            timeout = max(0, (deadline - clock.now).nanoseconds)
        }
        let ready = ward_ppoll(&fds, nfds_t(fds.count), timeout)
        wakeCount += 1
        if timer >= 0, fds.removeLast().revents != 0 {
            var expirations: UInt64 = 0
            _ = read(timer, &expirations, 8)
            armedFor = nil
        }
        if ready > 0 {
            let current = watches
            for (i, pfd) in fds.enumerated() where pfd.revents != 0 {
                // A handler may have unwatched a later descriptor; skip it then.
                guard watches.contains(where: { $0.fd == pfd.fd && $0.events == pfd.events }) else { continue }
                current[i].onReadable()
                if stopped { return }
            }
        }
        onWake()
    }
}

@available(*, unavailable)
extension EventLoop: Sendable {}
