import CWardSystem
import Glibc

/// Standard output's stdio buffer, owned by Ward so a lock can zero it.
///
/// stdio keeps the last bytes written (a chart's table, a readline echo) in its buffer after it
/// flushes them; a buffer of stdio's own choosing would carry them into a core image taken after
/// the lock. One per process: `setvbuf` replaces any earlier one. The memory is never freed,
/// because stdio writes into it until the process exits.
public final class StdoutBuffer: Wipeable {
    private let buffer: UnsafeMutablePointer<CChar>
    private let size: Int

    /// Line-buffered for a terminal (readline echoes through it); fully buffered for a pipe,
    /// where the batch flushes after each command.
    public init(size: Int = 4096, lineBuffered: Bool = true) {
        self.size = size
        buffer = .allocate(capacity: size)
        buffer.initialize(repeating: 0, count: size)
        setvbuf(ward_stdout(), buffer, lineBuffered ? _IOLBF : _IOFBF, size)
    }

    /// Writes out what is pending; false when standard output is gone (a closed pipe).
    @discardableResult
    public func flush() -> Bool {
        flushFailure() == nil
    }

    /// Writes out what is pending; the `errno` of a failed write, nil when it was written.
    /// `EPIPE` is a reader that went away; anything else (`EBADF` for a standard output that was
    /// closed and is now /dev/null read-only, `ENOSPC`) is output that could not be written.
    public func flushFailure() -> Int32? {
        guard fflush(ward_stdout()) != 0 else { return nil }
        let code = errno
        clearerr(ward_stdout())
        return code
    }

    /// Flushes, then zeroes every byte the buffer held.
    public func wipe() {
        flush()
        explicit_bzero(buffer, size)
    }
}

@available(*, unavailable)
extension StdoutBuffer: Sendable {}
