import Glibc
import PostgresNIO
import Synchronization
import WardCore

/// The site's live sessions, on its PostgreSQL server: every host's sessions in one table
/// (`ward_session`, migration `9-live-sessions`), so that `ward sessions` and `ward lock` on any
/// host reach the sessions of all.
///
/// ```
/// session ──its own connection──► pg_try_advisory_lock(key), LISTEN ward_session_ID, INSERT row
///         ◄──NOTIFY (NIO thread)── pipe byte ──► Ward's loop (requestDescriptor) ──► takeRequest
/// ward lock (any host) ──► SELECT live rows ──► pg_notify('ward_session_ID', 'lock\nwho')
///                      ──► waits for the row's state (locked) or lock count to change
/// ```
///
/// Liveness is the server's: a row is listed while the connection that wrote it holds the
/// advisory lock the row names (`ward_session_is_live`). A session killed with SIGKILL, or whose
/// host is gone, loses its connection, so its lock, so its listing; no session wakes to say it is
/// alive. The notification arrives on the connection's own thread and is handed to Ward's loop
/// through a pipe the loop already watches: an idle session sleeps in `ppoll` as it does without
/// PostgreSQL.
///
/// Each session keeps a connection of its own for this (not the records' connection, which a
/// failover replaces and which the records code may close): losing it is told to the loop the
/// same way, and the session lists itself again on the next server that will do.
///
/// - Important: The session's calls (`write`, `remove`, `takeRequest`) run on Ward's loop thread;
///   the listener runs on the connection's thread and only appends to `pending` and writes the pipe.
public final class PostgresSessionDirectory: SessionDirectory {
    private let link: PostgresLink
    /// This host's name, as the rows and `ward sessions` give it.
    private let host: String
    /// The pipe's read end (the loop's) and write end (the listener's); -1 when it could not be
    /// made (`pipeError`), which `checkWritable` reports.
    private let wake: (read: Int32, write: Int32)
    private let pipeError: Int32
    private let state = Mutex(Shared())

    private struct Shared {
        /// Requests received and not yet taken.
        var pending: [SessionRegistry.Request] = []
        /// The connection the session's row and listener are on; another one (after a failover)
        /// must list the session again.
        var listeningOn: ObjectIdentifier?
        /// The session's entry as last written, to write again on a new connection.
        var entry: SessionEntry?
        /// The lock count of each session this process asked to lock, when it asked.
        var asked: [String: Int32] = [:]
    }

    /// The listing connection's `application_name`: not "ward", so that `ward db migrate` does not
    /// count it among the sessions whose reads a migration would block (it reads only its table,
    /// and a locked session keeps it).
    static let applicationName = "ward-session"

    /// The longest requester name a notification carries.
    static let requesterLimit = 512

    public init(settings: PostgresSettings, host: String = PostgresSessionDirectory.hostName) {
        link = PostgresLink(settings: settings, applicationName: Self.applicationName)
        self.host = host
        var fds: [Int32] = [-1, -1]
        // pipe and fcntl: pipe2 is behind _GNU_SOURCE, which Glibc's module does not define.
        pipeError = pipe(&fds) == 0 ? 0 : errno
        for fd in fds where fd >= 0 {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, O_NONBLOCK)
        }
        wake = (fds[0], fds[1])
    }

    deinit {
        link.close()
        if wake.read >= 0 { close(wake.read) }
        if wake.write >= 0 { close(wake.write) }
    }

    /// The host's name (`gethostname`), as `hostname` prints it.
    public static var hostName: String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "unknown" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    public var requestDescriptor: Int32? { wake.read >= 0 ? wake.read : nil }

    /// The channel a session listens on: its identifier is hex (`SessionRegistry.isValidID`), so
    /// the name needs no quoting and stays within PostgreSQL's 63 bytes.
    static func channel(_ id: String) -> String { "ward_session_" + id }

    /// The advisory lock key of session `id`: its 64 bits (`SessionID`), so that two sessions
    /// never share one.
    static func lockKey(_ id: String) -> Int64 {
        Int64(bitPattern: UInt64(id.prefix(16), radix: 16) ?? 0)
    }

    // MARK: The session's side

    /// Connects: a server that cannot be reached stops Ward before sign-on (69), as the records do.
    public func checkWritable() throws {
        guard wake.read >= 0 else { throw SystemError("pipe", code: pipeError) }
        try link.connect()
        // The dead rows go now, unwaited for, while the password is typed: listing at sign-on
        // then finds the server's caches for the table, its policies and `ward_session_is_live`
        // warm (a new server process reads them from the catalog, some 1.5 ms).
        _ = try? link.send([Self.removeDeadRows])
    }

    /// Removes the rows of sessions whose connections are gone (listed no more, whatever their
    /// state says).
    private static let removeDeadRows: PostgresQuery =
        "DELETE FROM ward_session WHERE NOT ward_session_is_live(backend_pid, lock_key)"

    public func write(_ entry: SessionEntry) throws {
        guard SessionRegistry.isValidID(entry.id) else { return }
        var entry = entry
        entry.host = host
        let connected = try link.liveConnection()
        let connection = connected.connection
        let listening = state.withLock { shared in
            shared.entry = entry
            return shared.listeningOn == ObjectIdentifier(connection)
        }
        if listening {
            try link.query(
                """
                UPDATE ward_session SET state = \(entry.state.rawValue),
                    locks = locks + CASE WHEN \(entry.state.rawValue) = 'locked' THEN 1 ELSE 0 END
                WHERE id = \(entry.id)
                """
            )
        } else {
            try list(entry, on: connection)
        }
    }

    /// Lists the session on `connection`: its lock, its channel, its row (dead rows of other
    /// sessions removed first, and its own from a connection it lost).
    private func list(_ entry: SessionEntry, on connection: PostgresConnection) throws {
        let key = Self.lockKey(entry.id)
        let taken = try link.query("SELECT pg_try_advisory_lock(\(key))")
        guard (try? taken.first?.decode(Bool.self)) == true else {
            throw StoreError.database(reason: "session \(entry.id) is listed by another connection")
        }
        connection.addListener(channel: Self.channel(entry.id)) { [weak self] _, message in
            self?.received(message.payload)
        }
        // The loop hears of a lost connection and lists the session again (`takeRequest`). Weak:
        // once this directory is gone its pipe is closed, and the number may be another file's.
        connection.closeFuture.whenComplete { [weak self] _ in self?.wakeLoop() }
        _ = try link.queries([
            PostgresQuery(unsafeSQL: "LISTEN " + Self.channel(entry.id)),
            Self.removeDeadRows,
            """
            INSERT INTO ward_session (id, host, pid, process_start, uid, user_name, role, tty, peer, started, state, lock_key)
            VALUES (\(entry.id), \(entry.host ?? host), \(entry.pid), \(Int64(bitPattern: entry.processStart)),
                \(Int64(entry.uid)), \(entry.user), \(entry.role), \(entry.tty), \(entry.peer), \(entry.started),
                \(entry.state.rawValue), \(key))
            """,
        ])
        state.withLock { $0.listeningOn = ObjectIdentifier(connection) }
    }

    /// A notification, on the connection's thread: kept for the loop, which the pipe wakes.
    private func received(_ payload: String) {
        let lines = payload.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)
        let action = lines.first.flatMap { SessionRegistry.RequestAction(rawValue: String($0)) } ?? .lock
        let by = lines.count > 1 ? String(decoding: lines[1].utf8.prefix(Self.requesterLimit), as: UTF8.self) : ""
        state.withLock { $0.pending.append(SessionRegistry.Request(by: by.isEmpty ? "a request" : by, action: action)) }
        wakeLoop()
    }

    /// One byte down the pipe: the loop wakes and calls `takeRequest`. A full pipe already
    /// wakes it, so a failed write loses nothing.
    private func wakeLoop() {
        var byte: UInt8 = 1
        _ = Glibc.write(wake.write, &byte, 1)
    }

    /// The next request received; first the pipe is emptied and, when the connection was lost
    /// meanwhile, the session listed again on a new one.
    public func takeRequest(id: String) -> SessionRegistry.Request? {
        var bytes = [UInt8](repeating: 0, count: 64)
        while read(wake.read, &bytes, bytes.count) > 0 {}
        let (entry, listening) = state.withLock { ($0.entry, $0.listeningOn) }
        let current = link.current.withLock { connected in connected?.connection }
        if let entry, let listening, current.map(ObjectIdentifier.init) != listening || current?.isClosed ?? true {
            // Best effort: a server that cannot be reached now is tried again at the next lock
            // or unlock, each of which writes the entry.
            try? write(entry)
        }
        return state.withLock { $0.pending.isEmpty ? nil : $0.pending.removeFirst() }
    }

    /// Takes the row off and closes the connection, which releases the lock: the session is
    /// unlisted even if the row's removal does not reach the server.
    public func remove(id: String) {
        let had = state.withLock { shared in
            defer {
                shared.entry = nil
                shared.listeningOn = nil
            }
            return shared.entry != nil
        }
        guard had, SessionRegistry.isValidID(id), let connected = link.current.withLock({ $0 }) else { return }
        let deleted = connected.connection.query("DELETE FROM ward_session WHERE id = \(id)", logger: link.logger)
        deleted.whenComplete { [link] _ in link.close() }
    }

    // MARK: Every host's sessions

    public func entries() throws -> [SessionEntry] {
        let rows = try link.query(
            """
            SELECT id, host, pid, process_start, uid, user_name, role, tty, peer, started, state
            FROM ward_session WHERE ward_session_is_live(backend_pid, lock_key) ORDER BY started, id
            """
        )
        return try PostgresLink.decoded {
            try rows.compactMap { row in
                let (id, host, pid, start, uid, user, role, tty, peer, started, state) = try row.decode(
                    (String, String, Int32, Int64, Int64, String, String, String?, String?, String, String).self
                )
                guard let state = SessionEntry.State(rawValue: state) else { return nil }
                return SessionEntry(
                    id: id,
                    pid: pid,
                    processStart: UInt64(bitPattern: start),
                    uid: UInt32(truncatingIfNeeded: uid),
                    user: user,
                    role: role,
                    tty: tty,
                    peer: peer,
                    started: started,
                    state: state,
                    host: host
                )
            }
        }
    }

    public func requestLock(of entry: SessionEntry, by requester: String) throws(SessionRegistry.RequestFailure) {
        try request(.lock, of: entry, by: requester)
    }

    public func requestSignOff(of entry: SessionEntry, by requester: String) throws(SessionRegistry.RequestFailure) {
        try request(.signOff, of: entry, by: requester)
    }

    /// Notifies the session's channel, if the session is still live; remembers its lock count,
    /// which its next lock raises (`hasPendingRequest`).
    private func request(
        _ action: SessionRegistry.RequestAction,
        of entry: SessionEntry,
        by requester: String
    ) throws(SessionRegistry.RequestFailure) {
        guard SessionRegistry.isValidID(entry.id) else { throw .gone }
        do {
            let rows = try link.query(
                """
                SELECT locks FROM ward_session
                WHERE id = \(entry.id) AND ward_session_is_live(backend_pid, lock_key)
                """
            )
            guard let row = rows.first else { throw SessionRegistry.RequestFailure.gone }
            let locks = try PostgresLink.decoded { try row.decode(Int32.self) }
            state.withLock { $0.asked[entry.id] = locks }
            try link.query("SELECT pg_notify(\(Self.channel(entry.id)), \(action.rawValue + "\n" + requester))")
        } catch let failure as SessionRegistry.RequestFailure {
            throw failure
        } catch {
            throw .system(operation: "notify it through the records server", errno: EIO)
        }
    }

    /// Whether the session asked by this process has neither locked since (its lock count is
    /// the same) nor ended.
    public func hasPendingRequest(id: String) -> Bool {
        guard let asked = state.withLock({ $0.asked[id] }) else { return false }
        guard
            let rows = try? link.query(
                """
                SELECT locks, state FROM ward_session
                WHERE id = \(id) AND ward_session_is_live(backend_pid, lock_key)
                """
            ),
            let row = rows.first,
            let now = try? row.decode((Int32, String).self)
        else { return false }
        return now.0 == asked && now.1 != SessionEntry.State.locked.rawValue
    }
}
