import CWardSystem
import Glibc

/// A pseudo-terminal for the program `ward exec` runs: Ward holds the master, the program gets
/// the slave as its controlling terminal.
///
/// The master is non-blocking: a program that stops reading (frozen at a lock, busy with a
/// query) must not stop Ward's loop, which still has signals, deadlines and the lock to serve.
/// What cannot be written yet waits in `pending` (`ProgramRunner`).
public final class PseudoTerminal {
    /// The master side, watched by the loop.
    public let master: Int32
    /// The slave's path (`/dev/pts/N`), opened by the program as its terminal.
    public let slavePath: String

    /// A new pair whose slave has `settings` (the user's terminal's, so the erase key and the
    /// like match) and `size`.
    public init(settings: termios, size: (rows: Int, columns: Int)) throws(SystemError) {
        var settings = settings
        var name = [CChar](repeating: 0, count: 128)
        let fd = ward_pty_open(
            &settings,
            UInt16(clamping: size.rows),
            UInt16(clamping: size.columns),
            &name,
            name.count
        )
        guard fd >= 0 else { throw SystemError("posix_openpt") }
        master = fd
        slavePath = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    deinit { close(master) }

    /// Tells the program its window's size; the kernel sends it SIGWINCH when the size changed.
    public func resize(to size: (rows: Int, columns: Int)) {
        _ = ward_pty_set_size(master, UInt16(clamping: size.rows), UInt16(clamping: size.columns))
    }

    /// The slave's foreground process group (the program, or the job a shell in it runs); nil
    /// when there is none.
    public var foregroundGroup: pid_t? {
        let group = tcgetpgrp(master)
        return group > 0 ? group : nil
    }

    /// What the program wrote, up to `buffer.count` bytes: the count, 0 when nothing is there
    /// now, nil when the slave has closed (every process holding it has ended).
    public func read(into buffer: inout [UInt8]) -> Int? {
        let n = buffer.withUnsafeMutableBytes { Glibc.read(master, $0.baseAddress, $0.count) }
        if n > 0 { return n }
        if n < 0, errno == EAGAIN || errno == EINTR { return 0 }
        return nil
    }

    /// Writes what the program's input can take now; the count written, or nil when the slave
    /// has closed.
    public func write(_ bytes: ArraySlice<UInt8>) -> Int? {
        let n = bytes.withUnsafeBytes { Glibc.write(master, $0.baseAddress, $0.count) }
        if n >= 0 { return n }
        if errno == EAGAIN || errno == EINTR { return 0 }
        return nil
    }
}

@available(*, unavailable)
extension PseudoTerminal: Sendable {}
