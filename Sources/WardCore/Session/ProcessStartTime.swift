import Glibc

/// When a process started, read from `/proc/PID/stat`: how a session entry tells its own
/// process from a later one the kernel gave the same pid.
///
/// A pid alone is not an identity: a session killed with SIGKILL leaves its entry behind, and
/// its pid comes round again. `ward lock` must never signal the stranger that now has it.
public enum ProcessStartTime {
    /// Field 22 (`starttime`, clock ticks after boot) of the process's stat line; nil when the
    /// process does not exist.
    ///
    /// The command name (field 2) is in parentheses and may itself hold spaces and `)`: the
    /// fields are counted from the last `)`.
    public static func of(_ pid: Int32) -> UInt64? {
        let fd = open("/proc/\(pid)/stat", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 1024)
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard n > 0 else { return nil }
        let line = buffer[0..<n]
        guard let close = line.lastIndex(of: UInt8(ascii: ")")) else { return nil }
        // After ") ": field 3 (state) is the first; starttime is field 22, the 20th from there.
        let fields = line[(close + 1)...].split(separator: UInt8(ascii: " "))
        guard fields.count >= 20 else { return nil }
        return UInt64(String(decoding: fields[19], as: UTF8.self))
    }

    /// This process's start.
    public static var current: UInt64 { of(getpid()) ?? 0 }
}
