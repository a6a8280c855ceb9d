import FoundationEssentials
import Glibc
import WardPluginAPI

/// One live session as the home's registry lists it (`ward sessions`): whose it is, where it
/// runs, and whether it is locked.
///
/// Written by the session itself at sign-on and on each lock and unlock, removed at its end
/// (`SessionRegistry`). It never holds a patient field, a typed line or a secret: an
/// administrator may read it to decide whom to lock out, and it is a file in the home.
public struct SessionEntry: Codable, Equatable, Sendable {
    /// Signed on and usable, or locked at its lock screen.
    public enum State: String, Codable, Sendable, CaseIterable {
        case signedOn = "signed-on"
        case locked
    }

    /// The session's identifier, as its audit records carry it (`SessionInfo.id`).
    public var id: String
    /// The Ward process.
    public var pid: Int32
    /// When the process started, in clock ticks since boot (`/proc/PID/stat` field 22): with the
    /// pid, it tells a live session from a pid the kernel has given to another process since.
    public var processStart: UInt64
    /// The Unix user the process runs as.
    public var uid: UInt32
    /// The Ward user signed on.
    public var user: String
    public var role: String
    /// The terminal, nil for a script.
    public var tty: String?
    /// The SSH client's address, for a session sshd started.
    public var peer: String?
    /// When the user signed on: UTC, ISO 8601 to the second.
    public var started: String
    public var state: State
    /// The host the session runs on, where the list is the site's (a shared database); nil in a
    /// home's own list, whose sessions all run on its host.
    public var host: String?

    public init(
        id: String,
        pid: Int32,
        processStart: UInt64,
        uid: UInt32,
        user: String,
        role: String,
        tty: String?,
        peer: String?,
        started: String,
        state: State,
        host: String? = nil
    ) {
        self.id = id
        self.pid = pid
        self.processStart = processStart
        self.uid = uid
        self.user = user
        self.role = role
        self.tty = tty
        self.peer = peer
        self.started = started
        self.state = state
        self.host = host
    }

    enum CodingKeys: String, CodingKey {
        case id, pid, uid, user, role, tty, peer, started, state, host
        case processStart = "process_start"
    }

    /// The entry as one JSON object, keys sorted: the file's content and `ward sessions --format json`.
    public func json() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding a struct of strings and integers cannot fail.
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    /// The wall-clock time now, as `started` writes it: `2026-11-25T17:04:05Z`.
    public static func utcNow() -> String {
        var now = time(nil)
        var parts = tm()
        gmtime_r(&now, &parts)
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T"
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
    }

    /// An entry read back from its file; nil when it is not one.
    public static func parse(_ bytes: [UInt8]) -> SessionEntry? {
        try? JSONDecoder().decode(SessionEntry.self, from: Data(bytes))
    }
}
