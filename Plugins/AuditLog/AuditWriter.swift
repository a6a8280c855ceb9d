import Glibc
import WardPluginAPI
import WardSupport

/// Appends records to one audit log file, shared with other Ward processes.
///
/// Each append, under `flock(LOCK_EX)` on the log:
/// 1. checks the path still names the file it opened (reopening after a rotation; refusing a
///    symbolic link, a file others can write, a read-only file), and checks it again once the
///    lock is held: a rotation may have renamed the file while this writer waited for it;
/// 2. reads the last record's `seq` and `hash` from the file's tail, and the head file; or,
///    when the file's size, its last line and the head file's bytes are still exactly what this
///    writer left after its own last record, takes them from memory (`KnownEnd`): what a re-read
///    would find, without parsing the tail and checking the head's mac again;
/// 3. writes the new record with one `write(2)` on an `O_APPEND` descriptor, and on failure
///    cuts the file back to where it was, so a failed append leaves no half line;
/// 4. syncs as the policy says, then updates the head file.
///
/// When the log is missing or empty but its head names records, another program renamed it
/// (logrotate) or someone removed it: the writer starts the new file with a `rotate` record that
/// continues the chain from the head, naming `FILE.1` when that file ends with the record the
/// head names (`startAfterRename`, in `AuditRotation.swift`). `ward audit rotate` renames the
/// log itself (`rotate()`).
///
/// A final line left torn by a crashed writer is closed with a newline before the next record,
/// so it never merges with it; `ward audit verify` reports it as torn.
///
/// - Important: Not `Sendable`: one writer per thread. Processes (and threads, each with its own
///   writer) share the file through `flock`.
public final class AuditWriter {
    /// `fsync` in the site file.
    public enum SyncPolicy: String, Sendable, CaseIterable {
        /// `fdatasync` after every record (or group), before Ward goes on: a power cut loses no
        /// record. A command line's record is the one exception (`append(_:session:source:
        /// deferringSync:)`): it is written at once and synced by the next sync, which comes
        /// before anything the command shows of a record (its accesses' sync) or else at the
        /// command's end (`syncRecords()`), so a command costs one `fdatasync`. The head file is
        /// synced by `sync()` (the plugin's timer, and closing): see `headIsUnsynced`.
        case always
        /// `fdatasync` at most once per interval (the plugin schedules it); a crash may lose that much.
        case interval
        /// Leave it to the kernel.
        case never
    }

    public let path: String
    public let headPath: String
    public let chain: AuditChain
    public let policy: SyncPolicy
    /// Who runs this writer outside a session (`ward audit rotate`): the `rotate` records it
    /// writes name them, as administrative records do. Nil in a session.
    public var administrator: AuditEntry.UnixUser?
    /// Written by `append` since the last sync of the log: with `interval` and `never`, since
    /// the last `sync()`; with `always`, a record appended with `deferringSync` and not yet
    /// covered by a later record's sync or by `syncRecords()`.
    public private(set) var hasUnsyncedWrites = false
    /// The head file was written since the last `sync()` and not synced: with `always`, the
    /// log is synced before every command and the head only by `sync()`. Syncing both doubled
    /// the `fdatasync` calls a command costs, and a head that lags after a power cut is never
    /// a false alarm: it is written after its records are on disk, so it can only fall behind
    /// them, which verify reports as a writer stopped between its writes (a warning), and a
    /// rename continues from (`holds`). What a lag gives up, for at most the plugin's sync
    /// interval before a power cut: noticing records cut from the log's end after it.
    public private(set) var headIsUnsynced = false

    /// Whether `sync()` has anything to do.
    public var needsSync: Bool { hasUnsyncedWrites || headIsUnsynced }

    var log: Int32 = -1
    var head: Int32 = -1
    private var identity: (device: UInt64, inode: UInt64)?
    /// The end this writer left under the lock after its own last record; nil before one, after
    /// a failure, and after the file was reopened.
    private var knownEnd: KnownEnd?
    private let clock: @Sendable () -> Int64
    private let host: String

    /// Opens (creating 0600) the log at `path` and its head file.
    ///
    /// - Parameter clock: Milliseconds since the epoch; the real time unless a test says otherwise.
    public init(
        path: String,
        chain: AuditChain = AuditChain(),
        policy: SyncPolicy = .always,
        clock: @escaping @Sendable () -> Int64 = UTCTimestamp.nowMilliseconds
    ) throws(AuditError) {
        self.path = path
        self.headPath = AuditHead.path(forLog: path)
        self.chain = chain
        self.policy = policy
        self.clock = clock
        self.host = Self.hostName()
        try reopen()
    }

    deinit { closeFiles() }

    /// A record as `append` wrote it: its number and its line, without the newline (for `SyslogForwarder`).
    public struct Written: Sendable {
        public var seq: Int64
        public var line: ArraySlice<UInt8>
    }

    /// Appends one record and returns its sequence number and line.
    @discardableResult
    public func append(
        _ entry: AuditEntry,
        session: AuditRecord.SessionFields,
        source: String?
    ) throws(AuditError)
        -> Written
    {
        try append([entry], session: session, source: source)[0]
    }

    /// Appends several records, each its own hash-chained line, as one group: one lock, one
    /// `write(2)`, one sync and one head update for all of them.
    ///
    /// `deferringSync`: with `always`, the group is written but not synced; the next sync of the
    /// log covers it (`fdatasync` flushes the whole file), which the caller must make happen
    /// before anything depends on the group being on disk (`syncRecords()`).
    ///
    /// The records of one command's accesses (a `find` lists up to 20 patients) would otherwise
    /// cost a lock, a check of the file's end, a write and, with `fsync = "always"`, two
    /// `fdatasync` calls each. Each record still has its own `seq` and hash; all have the time
    /// the group was written (`AuditRecord.Envelope`). A crash in the middle of the write leaves
    /// the group's last line torn (the lines before it are whole records, and verify checks
    /// them) or the head behind the log by up to the group's size; verify reports neither as
    /// tampering, as for a single record.
    ///
    /// - Returns: One `Written` per entry, in order; empty for no entries.
    @discardableResult
    public func append(
        _ entries: [AuditEntry],
        session: AuditRecord.SessionFields,
        source: String?,
        deferringSync: Bool = false
    ) throws(AuditError)
        -> [Written]
    {
        guard !entries.isEmpty else { return [] }
        let deferred = self.deferringSync
        self.deferringSync = deferringSync
        defer { self.deferringSync = deferred }
        try lockCurrentLog()
        defer { _ = flock(log, LOCK_UN) }
        defer { headLength = nil }

        if let known = knownEnd, try isUnchanged(since: known) {
            knownEnd = nil
            headLength = known.headLine.count
            return try writeRecords(entries, session: session, source: source, after: known.tail).written
        }
        knownEnd = nil
        var tail = try readTail()
        if let stored = try readHead() {
            if tail.isEmpty, stored.seq > 0 {
                // Renamed away (logrotate) or removed: continue the chain in a new file.
                tail = try startAfterRename(tail: tail, session: session, source: source).tail
            } else {
                try check(stored, against: tail)
            }
        }
        return try writeRecords(entries, session: session, source: source, after: tail).written
    }

    /// Refuses a log whose end is not what its head file names.
    func check(_ stored: AuditHead, against tail: Tail) throws(AuditError) {
        if stored.seq > tail.seq {
            throw .headMismatch(
                path: path,
                detail: "the log ends at record \(tail.seq) but its head says \(stored.seq) were written"
            )
        }
        if stored.seq == tail.seq, stored.hash != tail.hash {
            throw .headMismatch(path: path, detail: "record \(tail.seq) is not the one its head file names")
        }
    }

    /// Writes one record after `tail` to the open log and moves the head; returns the new tail
    /// and the record's line without its newline. The caller holds the lock.
    func writeRecord(
        _ entry: AuditEntry,
        session: AuditRecord.SessionFields,
        source: String?,
        after tail: Tail
    ) throws(AuditError) -> (tail: Tail, line: ArraySlice<UInt8>) {
        let result = try writeRecords([entry], session: session, source: source, after: tail)
        return (result.tail, result.written[0].line)
    }

    /// Writes `entries` after `tail`, chained one to the next, with one `write(2)`, then syncs
    /// (with `always`) and moves the head to the last of them. The caller holds the lock.
    func writeRecords(
        _ entries: [AuditEntry],
        session: AuditRecord.SessionFields,
        source: String?,
        after tail: Tail
    ) throws(AuditError) -> (tail: Tail, written: [Written]) {
        // One buffer for the group: each record's body is built in place, hashed where it lies,
        // and closed with its hash (`appendRecord`); the lines handed back are slices of it.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(entries.count * 448 + 1)
        if tail.isTorn { bytes.append(0x0A) }
        var ranges: [(seq: Int64, range: Range<Int>)] = []
        ranges.reserveCapacity(entries.count)
        var last = AuditHead(seq: tail.seq, hash: tail.hash)
        var lastStart = bytes.count
        let envelope = envelope(session: session, source: source)
        for entry in entries {
            lastStart = bytes.count
            last = appendRecord(entry, envelope: envelope, after: last, to: &bytes)
            ranges.append((last.seq, lastStart..<(bytes.count - 1)))
        }
        let lastLine = Array(bytes[lastStart...])
        knownEnd = nil

        if let code = Self.writeAll(log, bytes) {
            _ = ftruncate(log, off_t(tail.size))
            throw .io(path: path, operation: "write", errno: code)
        }
        if policy == .always, !deferringSync {
            // Also puts on disk a line's record written before without its own sync.
            if fdatasync(log) != 0 { throw .io(path: path, operation: "fdatasync", errno: errno) }
            hasUnsyncedWrites = false
        } else {
            hasUnsyncedWrites = true
        }
        let headLine = try writeHead(last)
        let newTail = Tail(seq: last.seq, hash: last.hash, size: tail.size + bytes.count, isTorn: false)
        knownEnd = KnownEnd(tail: newTail, lastLine: lastLine, headLine: headLine)
        return (newTail, ranges.map { Written(seq: $0.seq, line: bytes[$0.range]) })
    }

    /// The line and the head of a record that would follow `tail`, for a file the writer has not
    /// opened yet (the first record of a rotated log).
    func record(
        _ entry: AuditEntry,
        session: AuditRecord.SessionFields,
        source: String?,
        after tail: Tail
    ) -> (line: [UInt8], head: AuditHead) {
        var line: [UInt8] = []
        line.reserveCapacity(448)
        let head = appendRecord(
            entry,
            envelope: envelope(session: session, source: source),
            after: AuditHead(seq: tail.seq, hash: tail.hash),
            to: &line
        )
        return (line, head)
    }

    /// What a group's records share (`AuditRecord.Envelope`), as of now.
    private func envelope(session: AuditRecord.SessionFields, source: String?) -> AuditRecord.Envelope {
        // `getpid` is a system call: once a group, not once a record.
        AuditRecord.Envelope(milliseconds: clock(), host: host, pid: getpid(), session: session, source: source)
    }

    /// Appends the record after `previous` to `bytes`, newline included, and returns its head.
    ///
    /// The body is written where the line goes and hashed there; its closing brace then gives
    /// way to `,"hash":"…"}`, which is the line `AuditRecord.line(body:hash:)` makes, without
    /// a body array and a line array per record.
    private func appendRecord(
        _ entry: AuditEntry,
        envelope: AuditRecord.Envelope,
        after previous: AuditHead,
        to bytes: inout [UInt8]
    ) -> AuditHead {
        let seq = previous.seq + 1
        let start = bytes.count
        AuditRecord.appendBody(seq: seq, envelope: envelope, entry: entry, prev: previous.hash, to: &bytes)
        let hash = bytes.withUnsafeBufferPointer {
            chain.hash(prev: previous.hash, body: UnsafeBufferPointer(rebasing: $0[start...]))
        }
        bytes.removeLast()  // the closing brace; the hash goes before it
        bytes.append(contentsOf: #","hash":""#.utf8)
        bytes.append(contentsOf: hash.utf8)
        bytes.append(contentsOf: "\"}\n".utf8)
        return AuditHead(seq: seq, hash: hash)
    }

    /// The head file's length while `append` holds the lock and knows it (the head is as this
    /// writer left it: `isUnchanged`); nil otherwise. A head line never gets shorter while `seq`
    /// grows, so the file is cut after a new line only when it may hold more: `ftruncate` on
    /// every record cost as much as writing the line.
    private var headLength: Int?

    /// Whether the group being written leaves its sync to a later one (`append`'s
    /// `deferringSync`); false for every other write, a rotation's included.
    private var deferringSync = false

    /// With `always`: puts on disk a record appended with `deferringSync` that no later sync has
    /// covered yet; the log only, the head stays on `sync()`'s timer. Nothing to do otherwise.
    public func syncRecords() throws(AuditError) {
        guard policy == .always, hasUnsyncedWrites else { return }
        if fdatasync(log) != 0 { throw .io(path: path, operation: "fdatasync", errno: errno) }
        hasUnsyncedWrites = false
    }

    /// Flushes what `interval` and `never` left in the page cache.
    public func sync() throws(AuditError) {
        guard needsSync else { return }
        if hasUnsyncedWrites, fdatasync(log) != 0 { throw .io(path: path, operation: "fdatasync", errno: errno) }
        _ = fdatasync(head)
        hasUnsyncedWrites = false
        headIsUnsynced = false
    }

    /// Syncs and closes; the writer is unusable afterwards.
    public func close() {
        try? sync()
        closeFiles()
    }

    // MARK: - Files

    func reopen() throws(AuditError) {
        closeFiles()
        do {
            log = try FileSecurity.openFile(atPath: path, flags: O_RDWR | O_APPEND, create: true)
            head = try FileSecurity.openFile(atPath: headPath, flags: O_RDWR, create: true)
        } catch {
            closeFiles()
            throw .file(error)
        }
        var info = stat()
        guard fstat(log, &info) == 0 else { throw .io(path: path, operation: "stat", errno: errno) }
        identity = (UInt64(info.st_dev), UInt64(info.st_ino))
    }

    private func closeFiles() {
        if log >= 0 { Glibc.close(log) }
        if head >= 0 { Glibc.close(head) }
        log = -1
        head = -1
        identity = nil
        knownEnd = nil
    }

    /// Reopens when the log was moved away (rotation); refuses a symbolic link in its place.
    private func ensureSamePath() throws(AuditError) {
        var info = stat()
        if lstat(path, &info) != 0 {
            let code = errno
            guard code == ENOENT else { throw .io(path: path, operation: "stat", errno: code) }
            try syncAndReopen()
            return
        }
        if info.st_mode & S_IFMT == S_IFLNK { throw .file(.symbolicLink(path: path)) }
        if identity == nil || identity! != (UInt64(info.st_dev), UInt64(info.st_ino)) { try syncAndReopen() }
    }

    /// A record left to a later sync is in the file about to be let go: synced there first.
    private func syncAndReopen() throws(AuditError) {
        if log >= 0 { try syncRecords() }
        try reopen()
    }

    /// The open file itself: still a file of ours that others cannot write and we may.
    private func checkOpenFile() throws(AuditError) {
        do {
            try FileSecurity.checkFile(descriptor: log, path: path)
        } catch {
            throw .file(error)
        }
        var info = stat()
        guard fstat(log, &info) == 0 else { throw .io(path: path, operation: "stat", errno: errno) }
        if info.st_mode & S_IWUSR == 0 { throw .readOnly(path: path) }
    }

    private func lockLog() throws(AuditError) {
        try Self.lock(log, path: path)
    }

    static func lock(_ fd: Int32, path: String) throws(AuditError) {
        while flock(fd, LOCK_EX) != 0 {
            if errno != EINTR { throw .io(path: path, operation: "lock (flock)", errno: errno) }
        }
    }

    /// Locks the file the path names once the lock is held. A rotation renames the log under its
    /// lock: a writer that was waiting for that lock now holds the old file, and a record written
    /// there after the new file's `rotate` record named its end would break the series. It lets
    /// go and locks the new file instead.
    func lockCurrentLog() throws(AuditError) {
        while true {
            try ensureSamePath()
            try checkOpenFile()
            try lockLog()
            var info = stat()
            if lstat(path, &info) == 0, let identity,
                identity == (UInt64(info.st_dev), UInt64(info.st_ino))
            {
                return
            }
            _ = flock(log, LOCK_UN)
        }
    }

    // MARK: - Tail and head

    struct Tail {
        var seq: Int64
        var hash: String
        var size: Int
        /// The file ends in a line without its newline (a writer crashed mid-record).
        var isTorn: Bool
        /// The last record's `prev`, when the tail was read from a file.
        var prev: String? = nil

        /// No record in the file yet (empty, or only a torn first write).
        var isEmpty: Bool { seq == 0 && hash == AuditChain.genesis }
    }

    /// The last record's seq and hash, read backwards from the end in growing chunks.
    func readTail() throws(AuditError) -> Tail { try Self.readTail(log, path: path) }

    /// The last record of the open file `log` (named `path` in errors).
    static func readTail(_ log: Int32, path: String) throws(AuditError) -> Tail {
        var info = stat()
        guard fstat(log, &info) == 0 else { throw .io(path: path, operation: "stat", errno: errno) }
        let size = Int(info.st_size)
        if size == 0 { return Tail(seq: 0, hash: AuditChain.genesis, size: 0, isTorn: false) }
        var window = min(size, 8192)
        while true {
            let start = size - window
            var chunk = [UInt8](repeating: 0, count: window)
            let n = chunk.withUnsafeMutableBytes { pread(log, $0.baseAddress, window, off_t(start)) }
            if n != window { throw .io(path: path, operation: "read", errno: n < 0 ? errno : EIO) }
            let isTorn = chunk.last != 0x0A
            // Complete lines only: drop a torn end, and a first line that may be cut by the window.
            var lines = chunk.split(separator: 0x0A, omittingEmptySubsequences: false)
            lines.removeLast()
            if start > 0, !lines.isEmpty { lines.removeFirst() }
            for line in lines.reversed() {
                if let record = AuditRecord(line: 0, bytes: line) {
                    return Tail(seq: record.seq, hash: record.hash, size: size, isTorn: isTorn, prev: record.prev)
                }
            }
            if start == 0 {
                // Only a torn first write: start the chain; otherwise refuse to guess.
                if !chunk.contains(0x0A) { return Tail(seq: 0, hash: AuditChain.genesis, size: size, isTorn: true) }
                throw .noLastRecord(path: path)
            }
            window = min(size, window * 4)
        }
    }

    func readHead() throws(AuditError) -> AuditHead? {
        var buffer = [UInt8](repeating: 0, count: 512)
        let n = buffer.withUnsafeMutableBytes { pread(head, $0.baseAddress, $0.count, 0) }
        if n < 0 { throw .io(path: headPath, operation: "read", errno: errno) }
        if n == 0 { return nil }
        guard let stored = AuditHead(bytes: Array(buffer[0..<n]), chain: chain) else {
            throw .headMismatch(path: path, detail: "its head file \(headPath) is not one Ward wrote with this key")
        }
        return stored
    }

    /// Writes the head file; returns its bytes.
    @discardableResult
    func writeHead(_ value: AuditHead) throws(AuditError) -> [UInt8] {
        let bytes = value.line(chain: chain)
        let n = bytes.withUnsafeBytes { pwrite(head, $0.baseAddress, $0.count, 0) }
        if n != bytes.count { throw .io(path: headPath, operation: "write", errno: n < 0 ? errno : EIO) }
        if headLength.map({ $0 > bytes.count }) ?? true, ftruncate(head, off_t(bytes.count)) != 0 {
            throw .io(path: headPath, operation: "truncate", errno: errno)
        }
        headIsUnsynced = true
        return bytes
    }

    // MARK: - The end this writer left

    /// The log's end and head as this writer left them after its last record.
    ///
    /// Re-reading them costs an 8 KB read, splitting it into lines, parsing the last one as
    /// JSON and checking the head's mac (a SHA-256), on every record; with several Wards on one
    /// log another writer may have appended meanwhile, and someone may have cut or edited the
    /// files. So memory is trusted only when the bytes say nothing changed: the log is the same
    /// size and ends with the very line this writer wrote (after a newline or at the file's
    /// start), and the head file holds the very bytes it wrote. Then `readTail` and `readHead`
    /// would find exactly `tail` and the head it names, and the checks they feed would pass:
    /// nothing is skipped that could have failed. Anything else (another writer's record, a
    /// truncation, an edit of the last line or of the head) reads both again, as before.
    struct KnownEnd {
        var tail: Tail
        /// The last record's line, newline included.
        var lastLine: [UInt8]
        /// The head file's bytes.
        var headLine: [UInt8]
    }

    /// Whether the open log and head are still exactly as `known` says. The caller holds the lock.
    func isUnchanged(since known: KnownEnd) throws(AuditError) -> Bool {
        var info = stat()
        guard fstat(log, &info) == 0 else { throw .io(path: path, operation: "stat", errno: errno) }
        guard Int(info.st_size) == known.tail.size, known.tail.size >= known.lastLine.count else { return false }
        // The last line, and the newline before it unless it is the file's first.
        let length = known.lastLine.count + (known.tail.size > known.lastLine.count ? 1 : 0)
        var end = [UInt8](repeating: 0, count: length)
        let n = end.withUnsafeMutableBytes { pread(log, $0.baseAddress, length, off_t(known.tail.size - length)) }
        guard n == length else { return false }
        if length > known.lastLine.count, end[0] != 0x0A { return false }
        guard Self.endsWith(end, count: length, known.lastLine) else { return false }
        var stored = [UInt8](repeating: 0, count: 512)
        let m = stored.withUnsafeMutableBytes { pread(head, $0.baseAddress, $0.count, 0) }
        return m == known.headLine.count && Self.endsWith(stored, count: m, known.headLine)
    }

    /// The first `count` bytes of `bytes` end with `suffix`, compared with `memcmp` (a generic
    /// element-by-element comparison cost more than the read).
    private static func endsWith(_ bytes: [UInt8], count: Int, _ suffix: [UInt8]) -> Bool {
        guard suffix.count <= count, count <= bytes.count else { return false }
        return bytes.withUnsafeBytes { whole in
            suffix.withUnsafeBytes { part in
                part.isEmpty || memcmp(whole.baseAddress! + (count - part.count), part.baseAddress!, part.count) == 0
            }
        }
    }

    // MARK: - Helpers

    /// Writes every byte; returns the errno of a failure, nil on success.
    static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Int32? {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 {
                if errno == EINTR { continue }
                return errno
            }
            if n == 0 { return EIO }
            offset += n
        }
        return nil
    }

    private static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "unknown" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

@available(*, unavailable)
extension AuditWriter: Sendable {}

extension AuditWriter {
    /// Checks everything `append` checks before it writes (the path, the file's safety and mode,
    /// the head against the log's end), under the same lock, and writes nothing: a command that
    /// must not change what it cannot record asks this first (`ward user add`).
    public func checkAppendable() throws(AuditError) {
        try lockCurrentLog()
        defer { _ = flock(log, LOCK_UN) }
        let tail = try readTail()
        // An empty log after its head is one logrotate renamed: `append` continues it.
        if let stored = try readHead(), !(tail.isEmpty && stored.seq > 0) { try check(stored, against: tail) }
    }
}
