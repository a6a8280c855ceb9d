// The idle lock on a real loop: WardCore's EventLoop on the boot clock, a real InterceptorChain,
// and the IdleTimer plugin, as `SessionDriver` wires them (without readline or a terminal).
//
//   GuardsBenchmark precision [--trials N] [--timeout-ms MS] [--key-at-ms MS] [--timerfd]
//       N trials; in each, a key arrives at MS (a pipe written by another thread, so it comes
//       through the loop's ppoll like a real key and exercises the early-fire-and-re-arm path;
//       0 for no key: one sleep of the whole timeout, the idle user's case); prints lock time minus
//       deadline (key + timeout) for each trial and the p50/p90/p99/max. --timerfd: the deadline
//       comes as a CLOCK_BOOTTIME timerfd instead of ppoll's timeout (see DeadlineDescriptor).
//   GuardsBenchmark serve [--timeout-ms MS]
//       For compare_tmout.py: prints "ward> ", runs the loop on stdin until the idle lock, then
//       prints "locked after N wake-ups" and exits. With a long timeout it is an idle Ward
//       whose /proc/PID/status the script reads.
import Glibc
import IdleTimer
import WardCore

/// Writes straight to fd 1: unbuffered, so the pty sees the prompt at once (no Foundation here).
func say(_ text: String, newline: Bool = true) {
    let bytes = Array((newline ? text + "\n" : text).utf8)
    var offset = 0
    while offset < bytes.count {
        let n = bytes.withUnsafeBytes { write(1, $0.baseAddress! + offset, $0.count - offset) }
        if n <= 0 { return }
        offset += n
    }
}

/// Milliseconds with three decimals, e.g. `0.412 ms`.
func ms(_ d: Duration) -> String {
    let micro = d.nanoseconds / 1000
    let sign = micro < 0 ? "-" : ""
    let whole = abs(micro) / 1000, fraction = abs(micro) % 1000
    let digits = String(fraction)
    return "\(sign)\(whole).\(String(repeating: "0", count: 3 - digits.count))\(digits) ms"
}

let arguments = Array(CommandLine.arguments.dropFirst())

func option(_ name: String, default value: Int) -> Int {
    guard let i = arguments.firstIndex(of: name), i + 1 < arguments.count, let n = Int(arguments[i + 1]) else {
        return value
    }
    return n
}

/// A chain holding only the idle timer, already signed on.
func signedOnChain(clock: BootClock, timeout: Duration) -> InterceptorChain {
    let chain = InterceptorChain(clock: clock, session: SessionInfo(id: "bench", user: "bench", role: .clinician))
    chain.append(IdleTimer(timeout: timeout, warnBefore: .zero))
    _ = chain.send(.session(.signedOn(user: "bench", role: .clinician)))
    return chain
}

/// The typist thread: sleeps the milliseconds packed in the high half of `arg`, then writes one
/// byte to the descriptor in the low half. A C function, so it captures nothing.
func typeOneKeyLater(_ arg: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    let packed = Int(bitPattern: arg)
    let fd = Int32(truncatingIfNeeded: packed & 0xFFFF_FFFF), milliseconds = packed >> 32
    var delay = timespec(tv_sec: milliseconds / 1000, tv_nsec: milliseconds % 1000 * 1_000_000)
    var left = timespec()
    while clock_nanosleep(CLOCK_BOOTTIME, 0, &delay, &left) == EINTR { delay = left }
    var byte: UInt8 = 0x78
    _ = write(fd, &byte, 1)
    return nil
}

// timerfd(2), which Glibc's Swift module leaves out (no <sys/timerfd.h>). Plain int and pointer
// arguments, so the Swift and C conventions agree on x86-64 and arm64; a benchmark-only shortcut.
@_silgen_name("timerfd_create") func timerfd_create(_ clock: Int32, _ flags: Int32) -> Int32
@_silgen_name("timerfd_settime")
func timerfd_settime(
    _ fd: Int32, _ flags: Int32, _ new: UnsafePointer<itimerspec>, _ old: UnsafeMutablePointer<itimerspec>?
) -> Int32
let TFD_TIMER_ABSTIME: Int32 = 1

/// A deadline as a readable descriptor: a CLOCK_BOOTTIME timerfd set to an absolute instant.
///
/// What `EventLoop` could use instead of `ppoll`'s timeout. The kernel gives a poll timeout a
/// slack of 0.1% of its length (`select_estimate_accuracy`, up to 100 ms), so a 5-minute sleep
/// may end 100 ms late, while a timerfd's timer has no such slack. And a poll timeout counts on
/// CLOCK_MONOTONIC, which stops while the machine sleeps; a CLOCK_BOOTTIME timerfd fires on resume.
final class DeadlineDescriptor {
    let fd = timerfd_create(CLOCK_BOOTTIME, Int32(O_CLOEXEC | O_NONBLOCK))
    private var armed: Instant?

    func arm(_ deadline: Instant?) {
        guard deadline != armed else { return }
        armed = deadline
        let ns = deadline?.nanoseconds ?? 0  // zero disarms
        var spec = itimerspec(
            it_interval: timespec(tv_sec: 0, tv_nsec: 0),
            it_value: timespec(tv_sec: Int(ns / 1_000_000_000), tv_nsec: Int(ns % 1_000_000_000)))
        precondition(timerfd_settime(fd, TFD_TIMER_ABSTIME, &spec, nil) == 0, "timerfd_settime failed")
    }

    func drain() {
        var expirations: UInt64 = 0
        _ = read(fd, &expirations, 8)
        armed = nil
    }
}

/// One idle lock on the real loop; returns how late it came after the deadline, and the wake-ups.
/// With `timerfd`, the loop sleeps with no timeout and the deadline comes as a readable timerfd.
func trial(timeout: Duration, keyAfter: Duration, timerfd: Bool = false) -> (late: Duration, wakes: Int) {
    let clock = BootClock()
    let chain = signedOnChain(clock: clock, timeout: timeout)
    let loop = EventLoop(clock: clock)

    // The "key": a byte another thread writes to a pipe after keyAfter, read through ppoll like
    // a real key, so the early-fire-and-re-arm path runs as it does at a terminal.
    var fds: [Int32] = [-1, -1]
    precondition(pipe(&fds) == 0, "pipe failed")
    defer { close(fds[0]); close(fds[1]) }
    let keyReadEnd = fds[0]
    var typist = pthread_t()
    if keyAfter > .zero {
        let packed = Int(fds[1]) | Int(keyAfter.nanoseconds / 1_000_000) << 32
        precondition(pthread_create(&typist, nil, typeOneKeyLater, UnsafeMutableRawPointer(bitPattern: packed)) == 0)
    }
    defer { if keyAfter > .zero { pthread_join(typist, nil) } }

    // With no key, the deadline counts from sign-on: one sleep of the whole timeout.
    var keyAt = (chain.nextDeadline ?? clock.now) - timeout
    var lockedAt: Instant?
    loop.watch(keyReadEnd) {
        var byte: UInt8 = 0
        _ = read(keyReadEnd, &byte, 1)
        keyAt = clock.now
        _ = chain.send(.key(KeyPress([0x78])))
    }
    let deadlineFD = timerfd ? DeadlineDescriptor() : nil
    if let deadlineFD {
        defer { deadlineFD.arm(chain.nextDeadline) }
        loop.watch(deadlineFD.fd) { deadlineFD.drain() }
    } else {
        loop.nextDeadline = { chain.nextDeadline }
    }
    defer { if let deadlineFD { close(deadlineFD.fd) } }
    loop.onWake = {
        for case .lock(.idle) in chain.fireDueTimers() {
            lockedAt = clock.now
            loop.stop()
        }
        deadlineFD?.arm(chain.nextDeadline)
    }
    loop.run()
    return ((lockedAt ?? clock.now) - (keyAt + timeout), loop.wakeCount)
}

func percentile(_ sorted: [Duration], _ p: Double) -> Duration {
    // Nearest rank: the smallest value with at least p of the trials at or below it.
    let rank = Int((p * Double(sorted.count)).rounded(.up))
    return sorted[min(max(rank, 1), sorted.count) - 1]
}

func precision() {
    let trials = option("--trials", default: 40)
    let timeout = Duration.milliseconds(option("--timeout-ms", default: 1000))
    let keyAfter = Duration.milliseconds(option("--key-at-ms", default: 300))
    let timerfd = arguments.contains("--timerfd")
    say(
        "idle-lock precision: \(trials) trials, timeout \(timeout), a key at \(keyAfter) in each (0: none),"
            + (timerfd ? " deadline as a CLOCK_BOOTTIME timerfd" : " deadline as the ppoll timeout (EventLoop as is)"))
    var lateness: [Duration] = []
    for i in 1...trials {
        let (late, wakes) = trial(timeout: timeout, keyAfter: keyAfter, timerfd: timerfd)
        lateness.append(late)
        say("  trial \(i): lock - deadline = \(ms(late))  (\(wakes) wake-ups)")
    }
    let sorted = lateness.sorted()
    say(
        "lock - deadline: min \(ms(sorted[0])), p50 \(ms(percentile(sorted, 0.5))), p90 \(ms(percentile(sorted, 0.9))),"
            + " p99 \(ms(percentile(sorted, 0.99))), max \(ms(sorted[sorted.count - 1]))")
    let p99 = percentile(sorted, 0.99)
    say(p99 < .milliseconds(10) ? "goal met: p99 < 10 ms" : "GOAL MISSED: p99 >= 10 ms")
}

func serve() {
    let clock = BootClock()
    let timeout = Duration.milliseconds(option("--timeout-ms", default: 1000))
    let chain = signedOnChain(clock: clock, timeout: timeout)
    let loop = EventLoop(clock: clock)
    var buffer = [UInt8](repeating: 0, count: 256)
    loop.watch(0) {
        let n = read(0, &buffer, buffer.count)
        if n <= 0 { exit(0) }
        _ = chain.send(.key(KeyPress(Array(buffer[0..<n]))))
    }
    loop.nextDeadline = { chain.nextDeadline }
    loop.onWake = {
        for case .lock(.idle) in chain.fireDueTimers() {
            say("\nlocked after \(loop.wakeCount) wake-ups")
            loop.stop()
        }
    }
    say("ward> ", newline: false)
    loop.run()
}

switch arguments.first {
case "precision": precision()
case "serve": serve()
default:
    say("usage: GuardsBenchmark precision [--trials N] [--timeout-ms MS] [--key-at-ms MS] [--timerfd]")
    say("       GuardsBenchmark serve [--timeout-ms MS]")
    exit(64)
}
