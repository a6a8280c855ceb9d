import Glibc

/// What a process is, as far as another process of the host may read it: its command name and
/// real user id (`/proc/PID/status`, readable by anyone), and its executable when `/proc/PID/exe`
/// may be read (by root, or for a process that is dumpable).
///
/// A session registry entry names a pid; before Ward signals it, it checks that the pid is a
/// Ward like itself, run by the user the entry names. A pid and a start time alone were trusted
/// once, and an entry written by hand made `ward lock --all` signal an unrelated process.
public struct ProcessIdentity: Equatable, Sendable {
    /// The command name (the executable's file name, cut to 15 bytes by the kernel).
    public var name: String
    /// The real user id.
    public var uid: uid_t
    /// The executable's path, without the kernel's ` (deleted)` for one replaced since it
    /// started (an upgrade); nil when it cannot be read (Ward sessions are not dumpable, so only
    /// root reads theirs).
    public var executable: String?

    /// The process `pid`, nil when it does not exist (or its status cannot be read).
    public static func of(_ pid: Int32) -> ProcessIdentity? {
        let fd = open("/proc/\(pid)/status", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard n > 0 else { return nil }
        var name: String?
        var uid: uid_t?
        for line in buffer[0..<n].split(separator: UInt8(ascii: "\n")) {
            let text = String(decoding: line, as: UTF8.self)
            if text.hasPrefix("Name:") {
                name = String(text.dropFirst("Name:".count).drop { $0 == "\t" || $0 == " " })
            } else if text.hasPrefix("Uid:") {
                uid = text.dropFirst("Uid:".count).split(whereSeparator: { $0 == "\t" || $0 == " " }).first
                    .flatMap { uid_t($0) }
            }
        }
        guard let name, let uid else { return nil }
        return ProcessIdentity(name: name, uid: uid, executable: executable(of: pid))
    }

    /// This process.
    public static var current: ProcessIdentity? { of(getpid()) }

    private static func executable(of pid: Int32) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink("/proc/\(pid)/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        let path = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return path.hasSuffix(" (deleted)") ? String(path.dropLast(" (deleted)".count)) : path
    }

    /// Whether `other` runs the same program as this one, for `uid`: the real user id `uid`, and
    /// the same executable where both can be read, else the same command name. The executable
    /// decides when it is known: a process forked from a thread carries that thread's name.
    public func isSameProgram(as other: ProcessIdentity, uid: uid_t) -> Bool {
        guard other.uid == uid else { return false }
        if let mine = executable, let theirs = other.executable { return mine == theirs }
        return other.name == name
    }
}
