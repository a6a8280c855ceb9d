import Glibc
import WardPluginAPI

/// The home's list of live sessions: one small file per session in `sessions/` (0700), each
/// `ID.json` (0600), so that `ward sessions` can list them and `ward lock` can lock them.
///
/// ```
/// session (SessionDriver) ──sign-on, lock, unlock──► sessions/ID.json   (written whole, renamed)
///                         ──end───────────────────► removed
/// ward lock ──► sessions/ID.request (who asks) ──► SIGUSR1 ──► the session reads it, locks
/// ward user remove|disable ──► sessions/ID.request (who, sign-off) ──► SIGUSR1 ──► signs off
/// ```
///
/// One file per session rather than one shared file: a session writes only its own, so no lock
/// is needed between sessions, and a write is a `rename` (a reader sees the old or the new
/// entry, never half). A session killed with SIGKILL cannot remove its file: readers check
/// that the pid is alive and started when the entry says (`ProcessStartTime`), ignore the
/// entry otherwise, and remove it.
///
/// Each file is its writer's, 0600, checked as every file of the home is (`FileSecurity`): an
/// entry another Unix user wrote is not read. In the SSH deployment every session runs as the
/// one service account that owns the home.
public struct SessionRegistry: Sendable {
    /// `HOME/sessions`.
    public let directory: String

    public init(home: WardHome) {
        directory = home.path + "/sessions"
    }

    /// The longest request file read: one name.
    static let requestLimit = 512

    /// Whether `id` can name a session: what `SessionID.make()` gives (hex digits), so an
    /// identifier never becomes a path elsewhere.
    public static func isValidID(_ id: String) -> Bool {
        (1...64).contains(id.utf8.count) && id.utf8.allSatisfy { isHexDigit($0) }
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
    }

    private func entryPath(_ id: String) -> String { directory + "/" + id + ".json" }
    private func requestPath(_ id: String) -> String { directory + "/" + id + ".request" }

    // MARK: A session's own entry

    /// Writes `entry` in place of the session's previous one: to a new file, then renamed.
    public func write(_ entry: SessionEntry) throws(FileSecurityError) {
        try prepareDirectory()
        try replace(entryPath(entry.id), with: Array((entry.json() + "\n").utf8))
    }

    /// Checks, before anyone signs on, that this process can keep an entry here: the directory is
    /// made or checked, and a probe of an entry's size is written and removed. A session whose
    /// entry cannot be written is one `ward lock` cannot reach, so Ward refuses to start it
    /// rather than run it unlisted.
    public func checkWritable() throws(SessionRegistryError) {
        do throws(FileSecurityError) {
            try prepareDirectory()
            let probe = directory + "/probe.\(getpid()).new"
            try replace(probe, with: [UInt8](repeating: 0x20, count: 1024))
            unlink(probe)
        } catch {
            throw SessionRegistryError.cannotRegister(directory: directory, error)
        }
    }

    /// Removes the session's entry and any request left for it. Nothing when there is none.
    public func remove(id: String) {
        guard Self.isValidID(id) else { return }
        unlink(entryPath(id))
        unlink(requestPath(id))
    }

    /// What a request file asks of a session.
    public enum RequestAction: String, Equatable, Sendable {
        /// Lock, as the user's own `lock` does (`ward lock`).
        case lock
        /// Sign off: the user was removed or disabled (`ward user remove`, `ward user disable`).
        case signOff = "sign-off"
    }

    /// A request left for a session: who asked, and what.
    public struct Request: Equatable, Sendable {
        public var by: String
        public var action: RequestAction

        public init(by: String, action: RequestAction) {
            self.by = by
            self.action = action
        }
    }

    /// The request left for this session, read once: it is removed. Nil when there is none, or
    /// it cannot be read (a signal without a readable request locks all the same). The file's
    /// first line is who asks, its second what (`sign-off`); a request without one locks.
    public func takeRequest(id: String) -> Request? {
        guard Self.isValidID(id) else { return nil }
        let path = requestPath(id)
        defer { unlink(path) }
        guard let fd = try? FileSecurity.openFile(atPath: path, flags: O_RDONLY | O_NONBLOCK) else { return nil }
        defer { close(fd) }
        guard let bytes = try? FileSecurity.readAll(descriptor: fd, path: path, limit: Self.requestLimit) else {
            return nil
        }
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init)
        guard let name = lines.first, !name.isEmpty else { return nil }
        let action = lines.dropFirst().first.flatMap(RequestAction.init(rawValue:)) ?? .lock
        return Request(by: name, action: action)
    }

    /// Whether a request left for `id` is still waiting for the session to take it.
    public func hasPendingRequest(id: String) -> Bool {
        Self.isValidID(id) && access(requestPath(id), F_OK) == 0
    }

    // MARK: Readers

    /// The live sessions, oldest first. Entries of processes that are gone (or whose pid now
    /// belongs to another process) are removed; files that are not entries are skipped.
    public func entries() -> [SessionEntry] {
        guard let dir = opendir(directory) else { return [] }
        var names: [String] = []
        while let item = readdir(dir) {
            let name = withUnsafeBytes(of: item.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name.hasSuffix(".json") { names.append(String(name.dropLast(5))) }
        }
        closedir(dir)
        var live: [SessionEntry] = []
        for id in names where Self.isValidID(id) {
            guard let entry = read(id: id), entry.id == id else { continue }
            if Self.isAlive(entry) { live.append(entry) } else { remove(id: id) }
        }
        return live.sorted { ($0.started, $0.id) < ($1.started, $1.id) }
    }

    /// The entry in `ID.json`, nil when missing, unsafe or not an entry.
    func read(id: String) -> SessionEntry? {
        let path = entryPath(id)
        guard let fd = try? FileSecurity.openFile(atPath: path, flags: O_RDONLY | O_NONBLOCK) else { return nil }
        defer { close(fd) }
        guard let bytes = try? FileSecurity.readAll(descriptor: fd, path: path, limit: 8192) else { return nil }
        return SessionEntry.parse(bytes)
    }

    /// Whether the entry's process still runs, and is a session: the pid exists, started when
    /// the entry says, and is the same program as this one (`ProcessIdentity`: its executable
    /// where it can be read, else its name) run by the user id the entry names. An entry naming any
    /// other process (written by hand, or a pid reused) is never signalled.
    public static func isAlive(_ entry: SessionEntry) -> Bool {
        guard entry.pid > 0, kill(entry.pid, 0) == 0 || errno == EPERM else { return false }
        guard ProcessStartTime.of(entry.pid) == entry.processStart else { return false }
        guard let mine = ProcessIdentity.current, let theirs = ProcessIdentity.of(entry.pid) else { return false }
        return mine.isSameProgram(as: theirs, uid: entry.uid)
    }

    // MARK: Asking a session to lock

    /// Why a session could not be asked to lock.
    public enum RequestFailure: Error, Equatable, Sendable {
        /// It ended meanwhile.
        case gone
        /// The request could not be written, or the signal not sent (`errno`).
        case system(operation: String, errno: Int32)
    }

    /// Leaves `requester` in `ID.request`, then sends the session SIGUSR1, which it turns into a
    /// lock through its chain. Checked again just before the signal: a pid that is no longer the
    /// session's is never signalled.
    public func requestLock(of entry: SessionEntry, by requester: String) throws(RequestFailure) {
        try request(.lock, of: entry, by: requester)
    }

    /// Leaves a sign-off request (`ward user remove|disable`) and signals, as `requestLock`.
    public func requestSignOff(of entry: SessionEntry, by requester: String) throws(RequestFailure) {
        try request(.signOff, of: entry, by: requester)
    }

    private func request(_ action: RequestAction, of entry: SessionEntry, by requester: String) throws(RequestFailure) {
        guard Self.isValidID(entry.id), Self.isAlive(entry) else { throw .gone }
        do {
            try replace(requestPath(entry.id), with: Array((requester + "\n" + action.rawValue + "\n").utf8))
        } catch {
            throw .system(operation: "write the request", errno: Self.errnoOf(error))
        }
        guard Self.isAlive(entry) else {
            remove(id: entry.id)
            throw .gone
        }
        if kill(entry.pid, SIGUSR1) != 0 {
            let code = errno
            unlink(requestPath(entry.id))
            throw code == ESRCH ? .gone : .system(operation: "signal", errno: code)
        }
    }

    private static func errnoOf(_ error: FileSecurityError) -> Int32 {
        if case .system(_, _, let code) = error { return code }
        return EIO
    }

    // MARK: Files

    /// Creates `sessions/` 0700 when missing; refuses one that is not a directory of ours, or
    /// that others may enter.
    private func prepareDirectory() throws(FileSecurityError) {
        if mkdir(directory, 0o700) != 0, errno != EEXIST {
            throw .system(path: directory, operation: "create", errno: errno)
        }
        var info = stat()
        guard lstat(directory, &info) == 0 else { throw .system(path: directory, operation: "stat", errno: errno) }
        guard info.st_mode & S_IFMT == S_IFDIR else { throw .notDirectory(path: directory) }
        guard info.st_uid == geteuid() else {
            throw .wrongOwner(path: directory, owner: info.st_uid, user: geteuid())
        }
        let mode = info.st_mode & 0o7777
        if mode & 0o077 != 0 { throw .unsafeMode(path: directory, mode: mode, fix: "700") }
    }

    /// `bytes` as the whole of `path`: written to `path.PID.new` (0600), then renamed over it.
    /// Not synced: the list describes live processes, which a crash ends anyway.
    private func replace(_ path: String, with bytes: [UInt8]) throws(FileSecurityError) {
        try FileSecurity.replaceFile(atPath: path, with: bytes, temporary: path + ".\(getpid()).new", sync: false)
    }
}
