import CWardSystem
import Glibc

/// The write end of the self-pipe, for the signal handler. Written once before any handler is
/// installed, read only by `forwardSignal`.
nonisolated(unsafe) private var signalPipeWriteEnd: Int32 = -1

/// The whole signal handler: one byte into the pipe. Nothing else is async-signal-safe enough.
private func forwardSignal(_ signo: Int32) {
    let saved = errno
    var byte = UInt8(truncatingIfNeeded: signo)
    _ = write(signalPipeWriteEnd, &byte, 1)
    if signo == SIGTERM || signo == SIGHUP, terminationPipeWriteEnd >= 0 {
        _ = write(terminationPipeWriteEnd, &byte, 1)
    }
    errno = saved
}

/// Turns signals into bytes on a pipe, so the loop handles them in ordinary code.
///
/// A handler that did the work itself (wipe, restore the terminal) would run in the middle of
/// whatever the loop was doing, readline included. Here it only writes the signal number; the loop
/// sees the pipe readable and turns the byte into `Event.lifecycle`.
///
/// SIGTERM and SIGHUP also wake `TerminationWatchdog`, which this starts: they end Ward within
/// a second even while a command runs, at a terminal and in a batch alike (`SessionDriver`).
public final class SignalPipe {
    /// Watch this in `poll`.
    public let readEnd: Int32
    private let writeEnd: Int32
    private let signals: [UnixSignal]

    /// Installs handlers for `signals`. There is one pipe per process.
    public init(signals: [UnixSignal]) throws(SystemError) {
        var fds: [Int32] = [-1, -1]
        guard pipe2(&fds, O_NONBLOCK | O_CLOEXEC) == 0 else { throw SystemError("pipe2") }
        readEnd = fds[0]
        writeEnd = fds[1]
        self.signals = signals
        signalPipeWriteEnd = writeEnd
        if signals.contains(.sigterm) || signals.contains(.sighup) { TerminationWatchdog.start() }
        for signal in signals { install(signal) }
    }

    /// Reads every signal that arrived since the last call, in order.
    public func drain() -> [UnixSignal] {
        var result: [UnixSignal] = []
        var buffer = [UInt8](repeating: 0, count: 64)
        while true {
            let n = read(readEnd, &buffer, buffer.count)
            if n <= 0 { break }
            result += buffer[0..<n].map { UnixSignal(rawValue: Int32($0)) }
        }
        return result
    }

    /// Puts the handler back (after `setDefault`, for a suspend), and unblocks the signal.
    ///
    /// Blocked signals are inherited across `fork` and `exec`: a parent that blocked SIGTSTP would
    /// leave Ctrl-Z pending forever, and Ward would never clear its screen and stop.
    public func install(_ signal: UnixSignal) {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = forwardSignal
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0  // no SA_RESTART: poll and read must return to the loop
        sigaction(signal.rawValue, &action, nil)
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, signal.rawValue)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }

    /// The system's default action, so `raise(SIGTSTP)` really stops the process.
    public func setDefault(_ signal: UnixSignal) {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = SIG_DFL
        sigemptyset(&action.sa_mask)
        sigaction(signal.rawValue, &action, nil)
    }

    /// Stops the process as Ctrl-Z would, and returns once it is continued (`fg`), with the
    /// handler back in place. The SIGCONT that woke it is in the pipe: the caller knows it as its own.
    public func stopUntilContinued() {
        setDefault(.sigtstp)
        raise(SIGTSTP)
        install(.sigtstp)
    }

    /// Default actions for every signal, and the pipe closed. SIGUSR1 (`ward lock`'s request)
    /// is ignored instead: a request that comes as the session ends must not kill the process
    /// before it exits with its own status.
    public func close() {
        for signal in signals where signal != .sigusr1 { setDefault(signal) }
        if signals.contains(.sigusr1) { Glibc.signal(SIGUSR1, SIG_IGN) }
        signalPipeWriteEnd = -1
        Glibc.close(readEnd)
        Glibc.close(writeEnd)
    }
}

@available(*, unavailable)
extension SignalPipe: Sendable {}
