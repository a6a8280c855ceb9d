import Glibc

/// A descriptor that becomes readable once Ward is asked to end (SIGTERM, SIGHUP), so that a
/// wait on the loop's thread ends at once instead of keeping the signal waiting.
///
/// A plugin that blocks in `poll` (an external plugin waiting for its program's reply) adds `fd`
/// to it and gives up when it is readable. The engine's watchdog posts the notice from its own
/// thread the moment the signal arrives (`CommandInterruption`).
///
/// A pipe rather than an `eventfd`: Glibc's Swift module does not declare `eventfd`, and the
/// support target links no C target of its own.
public enum TerminationNotice {
    private static let pipe: (read: Int32, write: Int32) = {
        var fds: [Int32] = [-1, -1]
        guard Glibc.pipe(&fds) == 0 else { return (-1, -1) }
        for fd in fds {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }
        return (fds[0], fds[1])
    }()

    /// Readable once termination was requested; add it to a blocking `poll`. Never read it.
    public static var fd: Int32 { pipe.read }

    /// Makes `fd` readable. Safe from any thread; the engine calls it once per request.
    package static func post() {
        var one: UInt8 = 1
        _ = write(pipe.write, &one, 1)
    }

    /// Makes `fd` unreadable again (tests only: one process runs many sessions).
    package static func clear() {
        var bytes = [UInt8](repeating: 0, count: 64)
        while read(pipe.read, &bytes, bytes.count) > 0 {}
    }
}
