import Glibc
import WardPluginAPI
import WardSupport

/// How one file of the audit log follows the one before it: the `rotate` record that opens it.
///
/// A rotated log is a series `FILE.N … FILE.2, FILE.1, FILE`, oldest first, numbered as
/// logrotate numbers it (`FILE.1` is the newest rotated file; each rotation moves the others up
/// by one, so logrotate's `rotate N` retention and `ward audit rotate` agree). The series is one
/// chain: the first record of each newer file is a `rotate` record whose `prev` is the hash of
/// the older file's last record and whose `seq` continues from it (numbers are never reused, so
/// a record is named by its seq across the whole series). The rotate record carries the older
/// file's name and record count, and plays for that file the part the head file plays for the
/// current one: records cut from the end of `FILE.1` no longer end where the next file says.
///
/// The name in a `rotate` record is the one the older file got at that moment; later rotations
/// renumber it. `ward audit verify` therefore takes each file's predecessor by position and
/// checks it by hash, never by the name.
public struct AuditRotation: Equatable, Sendable {
    /// Who started the new file, as `how` writes it.
    public enum Cause: String, Equatable, Sendable, CaseIterable {
        /// `ward audit rotate` renamed the log and started the new file.
        case command
        /// Another program (logrotate) renamed the log to `FILE.1`; the next writer, or
        /// `ward audit rotate --renamed`, found `FILE.1` ending with the record the head names.
        case renamed
        /// The log was gone or empty while its head named records, and `FILE.1` does not end
        /// with the record the head names: the log was removed or moved elsewhere. The new file
        /// continues from the head, so sessions keep working, and `ward audit verify` reports the
        /// series as incomplete until the missing file is back in its place.
        case missing
    }

    public var cause: Cause
    /// The older file's name when the new file began (`audit.jsonl.1`); nil when it was not found.
    public var previousFile: String?
    /// How many records the older file holds; nil when it was not found.
    public var previousRecords: Int64?
    /// The older file's last record, as the rotate record chains to it (its seq is one less).
    public var previous: AuditHead
    /// The rotate record itself: the head after the rotation.
    public var head: AuditHead

    public init(
        cause: Cause,
        previousFile: String?,
        previousRecords: Int64?,
        previous: AuditHead,
        head: AuditHead
    ) {
        self.cause = cause
        self.previousFile = previousFile
        self.previousRecords = previousRecords
        self.previous = previous
        self.head = head
    }

    /// Reads a `rotate` record; nil for any other record, or one whose fields are not a rotation's.
    public init?(record: AuditRecord) {
        guard record.kind == AuditEntry.Kind.rotate.rawValue,
            let cause = record.object.string("how").flatMap(Cause.init(rawValue:))
        else { return nil }
        self.init(
            cause: cause,
            previousFile: record.object.string("file"),
            previousRecords: record.object.integer("records"),
            previous: AuditHead(seq: record.seq - 1, hash: record.prev),
            head: AuditHead(seq: record.seq, hash: record.hash)
        )
    }

    /// The entry that opens the new file; `administrator` names who ran `ward audit rotate`
    /// (`unix_user`, `uid`, as the administrative records do), nil for a session's writer.
    func entry(by administrator: AuditEntry.UnixUser?) -> AuditEntry {
        AuditEntry(
            .rotate,
            (administrator?.fields ?? []) + [
                ("file", previousFile.map { .string($0) } ?? .null),
                ("records", previousRecords.map { .integer($0) } ?? .null),
                ("how", .string(cause.rawValue)),
            ]
        )
    }

    /// `FILE.n`, the name of rotated file `n` of the log at `path`.
    public static func rotatedPath(_ path: String, _ n: Int) -> String { "\(path).\(n)" }

    /// The last component of `path`.
    static func fileName(_ path: String) -> String {
        path.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? path
    }

    /// The directory of `path` (`.` for a bare name).
    static func directory(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// The numbers `n` of the files `FILE.n` beside the log, in ascending order.
    static func rotatedNumbers(_ path: String) -> [Int] {
        let prefix = fileName(path) + "."
        guard let dir = opendir(directory(path)) else { return [] }
        defer { closedir(dir) }
        var numbers: [Int] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard name.hasPrefix(prefix) else { continue }
            let suffix = name.dropFirst(prefix.count)
            // Canonical numbers only: `FILE.01` or `FILE.1.gz` is not part of the series.
            guard !suffix.isEmpty, suffix.allSatisfy(\.isASCII), suffix.allSatisfy(\.isNumber),
                suffix.first != "0", suffix.count < 10, let n = Int(suffix)
            else { continue }
            numbers.append(n)
        }
        return numbers.sorted()
    }
}

extension AuditWriter {
    /// Renames the log to `FILE.1` (and each older `FILE.n` to `FILE.n+1`, as logrotate does)
    /// and starts a new file whose first record is a `rotate` record naming `FILE.1`, carrying its
    /// record count and chained to its last record; the head file moves to that record.
    ///
    /// Under the log's lock, in an order that never leaves the path without a file: the new file
    /// is written and locked under a temporary name first; the log gets its second name
    /// `FILE.1` (a hard link); then the new file is renamed over the path. Writers waiting for
    /// the old file's lock find, once they hold it, that the path names another file, and move to
    /// it (`lockCurrentLog`); they wait there until the head has moved.
    ///
    /// When the log is already empty or missing while its head names records (logrotate renamed
    /// it), only the new file is started, as a writer would (`startAfterRename`).
    ///
    /// - Returns: The rotation, or nil when the log holds no record: there is nothing to rotate.
    @discardableResult
    public func rotate(session: AuditRecord.SessionFields, source: String?) throws(AuditError) -> AuditRotation? {
        try lockCurrentLog()
        let oldLog = log
        defer { _ = flock(oldLog, LOCK_UN) }
        // A rotation killed part-way is rolled back first, on record; this one then runs whole.
        try repairLocked(session: session, source: source)

        let tail = try readTail()
        let stored = try readHead()
        if tail.isEmpty {
            guard let stored, stored.seq > 0 else { return nil }
            return try startAfterRename(tail: tail, session: session, source: source).rotation
        }
        if let stored { try check(stored, against: tail) }

        let previousPath = AuditRotation.rotatedPath(path, 1)
        var rotation = AuditRotation(
            cause: .command,
            previousFile: AuditRotation.fileName(previousPath),
            previousRecords: tail.seq - (try Self.firstSeq(log, path: path) ?? tail.seq) + 1,
            previous: AuditHead(seq: tail.seq, hash: tail.hash),
            head: AuditHead(seq: 0, hash: "")
        )
        let start = Tail(seq: tail.seq, hash: tail.hash, size: 0, isTorn: false)
        let (line, head) = record(rotation.entry(by: administrator), session: session, source: source, after: start)
        rotation.head = head

        // 1. The new file, complete and locked before anyone can open it by the log's name.
        let temporary = InterruptedRotation.temporaryPath(path)
        let fresh: Int32
        do {
            fresh = try FileSecurity.createFile(atPath: temporary, flags: O_RDWR | O_APPEND)
        } catch {
            throw .file(error)
        }
        defer { Glibc.close(fresh) }
        try Self.lock(fresh, path: temporary)
        if let code = Self.writeAll(fresh, line) {
            unlink(temporary)
            throw .io(path: temporary, operation: "write", errno: code)
        }
        if fdatasync(fresh) != 0 {
            unlink(temporary)
            throw .io(path: temporary, operation: "fdatasync", errno: errno)
        }

        // 2. The older files up by one; the log gets its rotated name; the new file takes its place.
        try shiftRotatedFiles()
        if link(path, previousPath) != 0 {
            let code = errno
            unlink(temporary)
            throw .io(path: previousPath, operation: "link the log as", errno: code)
        }
        if rename(temporary, path) != 0 {
            let code = errno
            unlink(previousPath)
            unlink(temporary)
            throw .io(path: path, operation: "rename the new file to", errno: code)
        }
        Self.syncDirectory(of: path)

        // 3. The head moves to the rotate record, always synced: rotation is rare.
        try writeHead(head)
        if fdatasync(self.head) != 0 { throw .io(path: headPath, operation: "fdatasync", errno: errno) }
        try reopen()
        return rotation
    }

    /// Starts the new file after logrotate renamed the log (its `postrotate` script runs
    /// `ward audit rotate --renamed`): the same `rotate` record a writer would write at its next
    /// append, written now, so the rotation is on record when it happened.
    ///
    /// - Returns: The rotation, or nil when the log has records already (a writer was first, or
    ///   it was not renamed): nothing to start.
    @discardableResult
    public func continueAfterRename(
        session: AuditRecord.SessionFields,
        source: String?
    ) throws(AuditError)
        -> AuditRotation?
    {
        try lockCurrentLog()
        defer { _ = flock(log, LOCK_UN) }
        let tail = try readTail()
        guard tail.isEmpty, let stored = try readHead(), stored.seq > 0 else { return nil }
        return try startAfterRename(tail: tail, session: session, source: source).rotation
    }

    /// Starts the new file of a log that another program renamed away (logrotate) or someone
    /// removed: its first record is a `rotate` record that continues the chain from the head.
    ///
    /// `FILE.1` is named as the previous file when its last record is the one the head names;
    /// otherwise the record says `missing` and names no file, and `ward audit verify` reports the
    /// gap: continuing keeps every session working without hiding a removed log. `FILE.1` is
    /// locked first, and the head read again, because a writer that held the log's lock when it
    /// was renamed may still be appending to it, and moves the head after its record.
    ///
    /// - Important: The caller holds the lock on the new (empty) log.
    func startAfterRename(
        tail: Tail,
        session: AuditRecord.SessionFields,
        source: String?
    ) throws(AuditError) -> (rotation: AuditRotation, tail: Tail) {
        let previousPath = AuditRotation.rotatedPath(path, 1)
        let previous = open(previousPath, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        defer { if previous >= 0 { Glibc.close(previous) } }
        var info = stat()
        let isFile = previous >= 0 && fstat(previous, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
        if isFile { try Self.lock(previous, path: previousPath) }
        defer { if isFile { _ = flock(previous, LOCK_UN) } }

        guard let stored = try readHead(), stored.seq > 0 else {
            throw .headMismatch(path: path, detail: "its head file changed while the log was being continued")
        }
        var rotation = AuditRotation(
            cause: .missing,
            previousFile: nil,
            previousRecords: nil,
            previous: stored,
            head: AuditHead(seq: 0, hash: "")
        )
        // FILE.1 ends with the record the head names, or with records after it: a writer
        // stopped between its records (one, or a group: `append(_:session:source:)`) and its head.
        if isFile, let last = try? Self.readTail(previous, path: previousPath),
            (last.seq == stored.seq && last.hash == stored.hash)
                || (last.seq == stored.seq + 1 && last.prev == stored.hash)
                || (last.seq > stored.seq && Self.holds(previous, path: previousPath, stored)),
            let first = try? Self.firstSeq(previous, path: previousPath)
        {
            rotation.cause = .renamed
            rotation.previousFile = AuditRotation.fileName(previousPath)
            rotation.previousRecords = last.seq - first + 1
            rotation.previous = AuditHead(seq: last.seq, hash: last.hash)
        }
        let start = Tail(
            seq: rotation.previous.seq,
            hash: rotation.previous.hash,
            size: tail.size,
            isTorn: tail.isTorn
        )
        let written = try writeRecord(rotation.entry(by: administrator), session: session, source: source, after: start)
            .tail
        rotation.head = AuditHead(seq: written.seq, hash: written.hash)
        return (rotation, written)
    }

    /// Renames each `FILE.n` to `FILE.n+1`, highest first. A `FILE.1` that is a second name of
    /// the log itself was left by a rotation interrupted between its link and its rename: it is
    /// removed, and the log is rotated again.
    private func shiftRotatedFiles() throws(AuditError) {
        let first = AuditRotation.rotatedPath(path, 1)
        var mine = stat()
        var other = stat()
        if fstat(log, &mine) == 0, lstat(first, &other) == 0, mine.st_dev == other.st_dev, mine.st_ino == other.st_ino {
            unlink(first)
        }
        for n in AuditRotation.rotatedNumbers(path).reversed() {
            let from = AuditRotation.rotatedPath(path, n)
            let to = AuditRotation.rotatedPath(path, n + 1)
            if rename(from, to) != 0 {
                throw .io(path: from, operation: "rename to \(to): cannot rename", errno: errno)
            }
        }
    }

    /// The seq of the first record of an open file, read forwards in growing chunks; nil when
    /// the file holds no record.
    static func firstSeq(_ fd: Int32, path: String) throws(AuditError) -> Int64? {
        try firstRecord(fd, path: path)?.seq
    }

    /// The first record of an open file, read forwards in growing chunks; nil when the file
    /// holds no record.
    static func firstRecord(_ fd: Int32, path: String) throws(AuditError) -> AuditRecord? {
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .io(path: path, operation: "stat", errno: errno) }
        let size = Int(info.st_size)
        var window = min(size, 8192)
        while window > 0 {
            var chunk = [UInt8](repeating: 0, count: window)
            let n = chunk.withUnsafeMutableBytes { pread(fd, $0.baseAddress, window, 0) }
            if n != window { throw .io(path: path, operation: "read", errno: n < 0 ? errno : EIO) }
            var lines = chunk.split(separator: 0x0A, omittingEmptySubsequences: false)
            if window < size || chunk.last != 0x0A { lines.removeLast() }  // may be cut by the window
            for line in lines {
                if let record = AuditRecord(line: 0, bytes: line) { return record }
            }
            if window == size { return nil }
            window = min(size, window * 4)
        }
        return nil
    }

    /// Whether the open file `fd` holds the record `head` names, followed by records that chain
    /// to it up to its end: the file a writer left after a group whose head it did not move.
    /// Reads the whole file; only a rename after such a crash asks.
    static func holds(_ fd: Int32, path: String, _ head: AuditHead) -> Bool {
        var info = stat()
        guard fstat(fd, &info) == 0 else { return false }
        let size = Int(info.st_size)
        var bytes = [UInt8](repeating: 0, count: size)
        let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, size, 0) }
        guard n == size else { return false }
        var hash: String?
        for item in AuditVerifier.split(bytes) {
            guard let record = item.record else { continue }
            if record.seq == head.seq {
                guard record.hash == head.hash else { return false }
                hash = record.hash
            } else if let previous = hash {
                guard record.prev == previous else { return false }
                hash = record.hash
            }
        }
        return hash != nil
    }

    /// Makes the renames durable: a crash must not bring the old names back.
    static func syncDirectory(of path: String) {
        let fd = open(AuditRotation.directory(path), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        Glibc.close(fd)
    }
}
