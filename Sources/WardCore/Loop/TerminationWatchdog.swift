import CWardSystem
import Glibc

/// The watchdog's pipe, written by the signal handler for SIGTERM and SIGHUP (`SignalPipe`).
nonisolated(unsafe) var terminationPipeWriteEnd: Int32 = -1
nonisolated(unsafe) private var terminationPipeReadEnd: Int32 = -1
/// How long the loop's thread has to end the session after the signal, in milliseconds.
nonisolated(unsafe) private var terminationGraceMilliseconds: Int32 = 800

/// Ends Ward within a second of SIGTERM or SIGHUP, whatever the loop's thread is doing.
///
/// Signals are handled between commands, on the loop's thread (`SignalPipe`); a command that
/// runs long (a search over a million patients, an external plugin that hangs) kept SIGTERM
/// waiting for minutes. The signal handler therefore also writes the signal to this
/// watchdog's pipe, and a thread of its own, asleep in `read` until then, wakes and:
///
/// 1. interrupts what can be interrupted from another thread (`CommandInterruption`): the store's
///    running statement fails, an external plugin's wait ends. The loop's thread gets back to its
///    loop and ends the session as for any signal: through the chain, so the audit log holds the
///    abandoned command, the signal and the sign-off, and the terminal is restored;
/// 2. gives the loop's thread `grace` (800 ms) to finish. If the process is still there then,
///    the command is stuck in work nothing can interrupt (formatting a huge table, a write to a
///    reader that stopped reading): the watchdog restores the terminal from Ward's own saved
///    settings (`tcsetattr` is safe from any thread; `Terminal.restoreFromAnyThread`), and
///    `_exit`s with 128 + the signal. The audit log then lacks the signal's record: the process
///    could not be asked to write it safely, and ending matters more.
///
/// One per process, started by `SignalPipe` for the session driver in every mode.
///
/// - Important: The watchdog's thread blocks every signal: they must reach the loop's thread,
///   whose `poll` and blocking waits they interrupt.
public enum TerminationWatchdog {
    /// How long the loop's thread has to end the session itself.
    public static let grace: Duration = .milliseconds(800)

    private nonisolated(unsafe) static var started = false

    /// Starts the thread, once per process. Call before installing the signal handlers.
    static func start() {
        guard !started else { return }
        var fds: [Int32] = [-1, -1]
        guard pipe2(&fds, O_CLOEXEC) == 0 else { return }
        terminationPipeReadEnd = fds[0]
        terminationPipeWriteEnd = fds[1]
        terminationGraceMilliseconds = Int32(grace.nanoseconds / 1_000_000)
        var thread = pthread_t()
        let created = pthread_create(
            &thread,
            nil,
            { _ in
                TerminationWatchdog.watch()
                return nil
            },
            nil
        )
        if created == 0 {
            pthread_detach(thread)
            started = true
        }
    }

    /// The thread's whole life: wait for a terminate signal, interrupt, wait, end.
    private static func watch() {
        var all = sigset_t()
        sigfillset(&all)
        pthread_sigmask(SIG_BLOCK, &all, nil)
        var byte: UInt8 = 0
        while true {
            let n = read(terminationPipeReadEnd, &byte, 1)
            if n == 1 { break }
            if n < 0, errno == EINTR { continue }
            return  // the pipe is gone: nothing to watch
        }
        let signal = UnixSignal(rawValue: Int32(byte))
        CommandInterruption.request(by: signal)
        // Sleep out the grace; the process normally exits before it ends.
        var request = timespec(
            tv_sec: Int(terminationGraceMilliseconds / 1000),
            tv_nsec: Int(terminationGraceMilliseconds % 1000) * 1_000_000
        )
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0, errno == EINTR { request = remaining }
        Terminal.restoreFromAnyThread()
        _exit(128 + signal.rawValue)
    }
}
