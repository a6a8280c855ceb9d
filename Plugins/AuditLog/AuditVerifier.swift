import Glibc
import WardPluginAPI
import WardSupport

/// Checks a whole audit log: every record's hash, the chain of `prev` links, the sequence, and
/// the head file; names the first record that fails and how.
///
/// How each kind of tampering shows (`L` a line, `last` the last good record):
///
/// | found                                                        | reported  |
/// | ------------------------------------------------------------ | --------- |
/// | a record whose hash does not match its bytes                 | modified  |
/// | a record that chains to a record whose bytes were rehashed   | modified  |
/// | seq jumps past `last + 1`, the missing numbers nowhere later | deleted   |
/// | seq jumps past `last + 1`, a missing number found later      | reordered |
/// | a line the next record skips over (it chains to `last`)     | inserted  |
/// | a copy of a record already seen                              | inserted  |
/// | a cut-short record followed by records                       | truncated |
/// | the head file names a record past the end of the file        | truncated |
/// | no record matches its hash at all                            | wrong key |
///
/// A final line without its newline is a write torn by a crash: reported as torn, not as
/// tampering, and everything before it is still checked. A torn line closed by a later writer
/// (the chain continues straight past it) is reported the same way.
public struct AuditVerifier {
    public let chain: AuditChain

    public init(chain: AuditChain = AuditChain()) { self.chain = chain }

    /// Reads and checks the log at `path` and its head file, if there is one.
    public func verify(path: String) throws(AuditError) -> AuditReport {
        let bytes = try Self.readFile(path)
        var head: HeadState = .absent
        if access(AuditHead.path(forLog: path), F_OK) == 0 {
            let headBytes = try Self.readFile(AuditHead.path(forLog: path))
            head = AuditHead(bytes: headBytes, chain: chain).map { .present($0) } ?? .unreadable
        }
        return verify(bytes: bytes, head: head)
    }

    /// The head file as found beside the log.
    public enum HeadState: Equatable, Sendable {
        /// No head file (a copied log): removal from the end cannot be detected.
        case absent
        /// A head whose mac does not match (changed, or another key).
        case unreadable
        case present(AuditHead)
    }

    /// Checks the log's bytes.
    ///
    /// - Parameter after: The record the file's first record follows: the start of the chain
    ///   (seq 0, the genesis hash) for a log that was never rotated, the last record of the older
    ///   file for one file of a rotated series (`AuditSeries`).
    public func verify(
        bytes: [UInt8],
        head: HeadState = .absent,
        after: AuditHead = AuditHead(seq: 0, hash: AuditChain.genesis)
    ) -> AuditReport {
        var report = AuditReport(algorithm: chain.algorithm)
        let items = Self.split(bytes)
        if items.isEmpty {
            if case .present(let h) = head, h.seq > 0 {
                report.problem = AuditProblem(
                    kind: .truncated,
                    line: 1,
                    seq: nil,
                    detail: "the log is empty but its head file says \(h.seq) records were written"
                )
            }
            return report
        }

        // Not one record matches: the key, not the records, is what differs.
        let records = items.compactMap(\.record)
        if !records.isEmpty, !records.contains(where: { isValid($0) }) {
            let unkeyed = AuditVerifier(chain: AuditChain())
            let hint =
                chain.isKeyed && records.contains(where: { unkeyed.isValid($0) })
                ? "the log was written without a key; verify it without --key-file"
                : chain.isKeyed
                    ? "the log was written with another key, or every record was changed"
                    : "the log was written with a key (pass --key-file), or every record was changed"
            report.problem = AuditProblem(kind: .wrongKey, line: records[0].line, seq: records[0].seq, detail: hint)
            return report
        }

        var last = (seq: after.seq, hash: after.hash, line: 0)
        var seen: [String: Int64] = [:]
        var hashBySeq: [Int64: String] = [:]
        var tornAtEnd = false

        func chainsFromLast(_ index: Int) -> Bool {
            guard index < items.count, let r = items[index].record else { return false }
            return r.prev == last.hash && r.seq == last.seq + 1 && isValid(r)
        }

        for (index, item) in items.enumerated() {
            guard let r = item.record else {
                let isRecordPrefix = item.bytes.starts(with: Array(#"{"seq":"#.utf8))
                if item.isFinalAndUnterminated {
                    tornAtEnd = true
                    report.warnings.append(
                        "line \(item.line): the last line is incomplete (\(item.bytes.count) bytes), "
                            + "a write torn by a crash; not counted"
                    )
                    break
                }
                if chainsFromLast(index + 1), isRecordPrefix {
                    report.warnings.append(
                        "line \(item.line): an incomplete record left by an interrupted write; the chain continues past it"
                    )
                    continue
                }
                report.problem =
                    chainsFromLast(index + 1)
                    ? AuditProblem(
                        kind: .inserted,
                        line: item.line,
                        seq: nil,
                        detail: "line \(item.line) is not a record and not part of the chain"
                    )
                    : isRecordPrefix
                        ? AuditProblem(
                            kind: .truncated,
                            line: item.line,
                            seq: nil,
                            detail: "the record at line \(item.line) is cut short, and records follow it"
                        )
                        : AuditProblem(
                            kind: .modified,
                            line: item.line,
                            seq: nil,
                            detail: "line \(item.line) is not a readable record"
                        )
                return report
            }

            let valid = isValid(r)
            if valid, r.prev == last.hash, r.seq == last.seq + 1 {
                last = (r.seq, r.hash, r.line)
                seen[r.hash] = r.seq
                hashBySeq[r.seq] = r.hash
                report.count(r)
                if item.isFinalAndUnterminated {
                    report.warnings.append("line \(r.line): the last record has no newline; a write cut just short")
                }
                continue
            }
            report.problem = classify(
                r,
                valid: valid,
                last: last,
                seen: seen,
                nextChains: chainsFromLast(index + 1),
                laterSeqs: Set(items[(index + 1)...].compactMap { $0.record?.seq })
            )
            return report
        }

        switch head {
        case .absent:
            report.warnings.append("no head file beside the log: records removed from its end would not show")
        case .unreadable:
            report.problem = AuditProblem(
                kind: .modified,
                line: last.line,
                seq: nil,
                detail: "the head file was changed (or written with another key)"
            )
        case .present(let h):
            if h.seq > last.seq {
                let detail =
                    tornAtEnd
                    ? "the log ends at record \(last.seq) and a cut line, but its head says \(h.seq) were written"
                    : "the log ends at record \(last.seq) (line \(last.line)) but its head says \(h.seq) were written"
                report.problem = AuditProblem(kind: .truncated, line: last.line + 1, seq: last.seq + 1, detail: detail)
            } else if hashBySeq[h.seq].map({ $0 != h.hash }) ?? (h.seq != after.seq || h.hash != after.hash) {
                report.problem = AuditProblem(
                    kind: .modified,
                    line: last.line,
                    seq: h.seq,
                    detail: "record \(h.seq) is not the record its head file names"
                )
            } else if h.seq < last.seq {
                report.warnings.append(
                    "the head file names record \(h.seq) of \(last.seq): a writer stopped between its two writes"
                )
            }
        }
        return report
    }

    private func classify(
        _ r: AuditRecord,
        valid: Bool,
        last: (seq: Int64, hash: String, line: Int),
        seen: [String: Int64],
        nextChains: Bool,
        laterSeqs: Set<Int64>
    ) -> AuditProblem {
        let here = "record \(r.seq) at line \(r.line)"
        let inserted = AuditProblem(
            kind: .inserted,
            line: r.line,
            seq: r.seq,
            detail: "\(here) is not part of the chain: the next record follows record \(last.seq)"
        )
        if !valid {
            if nextChains { return inserted }
            return AuditProblem(
                kind: .modified,
                line: r.line,
                seq: r.seq,
                detail: "\(here) does not match its hash: it was changed after it was written"
            )
        }
        if r.seq == last.seq + 1 {
            if nextChains { return inserted }
            return AuditProblem(
                kind: .modified,
                line: last.line,
                seq: last.seq,
                detail: "record \(last.seq) at line \(last.line) was changed and rehashed: "
                    + "record \(r.seq) names another record before it"
            )
        }
        if r.seq > last.seq + 1 {
            if let missing = (last.seq + 1..<r.seq).first(where: laterSeqs.contains) {
                return AuditProblem(
                    kind: .reordered,
                    line: r.line,
                    seq: r.seq,
                    detail: "\(here) comes before record \(missing)"
                )
            }
            let gap = r.seq - last.seq - 1
            return AuditProblem(
                kind: .deleted,
                line: r.line,
                seq: last.seq + 1,
                detail: gap == 1
                    ? "record \(last.seq + 1) is missing before line \(r.line)"
                    : "records \(last.seq + 1) to \(r.seq - 1) are missing before line \(r.line)"
            )
        }
        if let copy = seen[r.hash] {
            return AuditProblem(
                kind: .inserted,
                line: r.line,
                seq: r.seq,
                detail: "\(here) is a copy of record \(copy)"
            )
        }
        if nextChains {
            return AuditProblem(
                kind: .inserted,
                line: r.line,
                seq: r.seq,
                detail: "\(here) is not part of the chain: the next record follows record \(last.seq)"
            )
        }
        return AuditProblem(
            kind: .reordered,
            line: r.line,
            seq: r.seq,
            detail: "\(here) comes after record \(last.seq)"
        )
    }

    func isValid(_ r: AuditRecord) -> Bool { chain.hash(prev: r.prev, body: r.body) == r.hash }

    /// One line of the file.
    struct Item {
        var line: Int
        var bytes: ArraySlice<UInt8>
        var record: AuditRecord?
        var isFinalAndUnterminated: Bool
    }

    static func split(_ bytes: [UInt8]) -> [Item] {
        var items: [Item] = []
        var start = 0
        var line = 1
        while start < bytes.count {
            let end = bytes[start...].firstIndex(of: 0x0A)
            let slice = bytes[start..<(end ?? bytes.count)]
            items.append(
                Item(
                    line: line,
                    bytes: slice,
                    record: AuditRecord(line: line, bytes: slice),
                    isFinalAndUnterminated: end == nil
                )
            )
            line += 1
            start = (end ?? bytes.count) + 1
        }
        return items
    }

    /// The whole file at `path`, up to 16 GiB.
    ///
    /// Read into an array of the size `fstat` gives, in reads as large as the kernel allows: a
    /// log of a million records is some 400 MB, and growing an array by a 64 KB read at a time
    /// copied it about twice over and touched twice its memory (Benchmarks/AuditQuery). What a
    /// writer appends after the `fstat` is read after it.
    static func readFile(_ path: String) throws(AuditError) -> [UInt8] {
        let limit = 1 << 34
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            throw .file(errno == ENOENT ? .notFound(path: path) : .system(path: path, operation: "open", errno: errno))
        }
        defer { close(fd) }
        var status = stat()
        let size = fstat(fd, &status) == 0 ? Int(status.st_size) : 0
        var failed: Int32?
        var bytes = [UInt8](unsafeUninitializedCapacity: min(size, limit)) { buffer, count in
            while count < buffer.count {
                let n = read(fd, buffer.baseAddress! + count, buffer.count - count)
                if n < 0, errno == EINTR { continue }
                if n < 0 { failed = errno }
                if n <= 0 { return }  // an error, or a file cut short since the fstat
                count += n
            }
        }
        if let failed { throw .file(.system(path: path, operation: "read", errno: failed)) }
        do {
            bytes += try FileSecurity.readAll(descriptor: fd, path: path, limit: limit - bytes.count)
        } catch {
            throw .file(error)
        }
        return bytes
    }
}

/// What `AuditVerifier` found.
public struct AuditReport: Sendable {
    /// `SHA-256` or `HMAC-SHA-256`.
    public let algorithm: String
    public private(set) var records = 0
    public private(set) var firstSeq: Int64?
    public private(set) var lastSeq: Int64?
    public private(set) var firstTime: String?
    public private(set) var lastTime: String?
    public private(set) var sessions: Set<String> = []
    public private(set) var users: Set<String> = []
    /// The hash of the last record counted: what an auditor notes when archiving the files.
    public private(set) var lastHash: String?
    /// How many files were checked as one series (1 for a log never rotated).
    public internal(set) var files = 1
    /// Each file of a series that was checked, oldest first: what an auditor notes of the files
    /// they archive (`ward audit verify --start-after`).
    public internal(set) var fileSummaries: [FileSummary] = []

    /// One checked file of a series: its record count and last record.
    public struct FileSummary: Equatable, Sendable {
        public var file: String
        public var records: Int
        public var firstSeq: Int64?
        public var lastSeq: Int64?
        public var lastHash: String?

        /// `FILE: N records (seq A–B), last hash H`.
        public var description: String {
            guard let firstSeq, let lastSeq, let lastHash else { return "\(file): no records" }
            return
                "\(file): \(records) record\(records == 1 ? "" : "s") (seq \(firstSeq)–\(lastSeq)), last hash \(lastHash)"
        }
    }
    /// Findings that are not tampering: a torn final line, a missing head file.
    public internal(set) var warnings: [String] = []
    /// The first record that fails, or nil when the log is intact.
    public internal(set) var problem: AuditProblem?

    init(algorithm: String) { self.algorithm = algorithm }

    public var isIntact: Bool { problem == nil }

    mutating func count(_ r: AuditRecord) {
        records += 1
        if firstSeq == nil { firstSeq = r.seq }
        lastSeq = r.seq
        lastHash = r.hash
        if let ts = r.timestamp {
            if firstTime == nil { firstTime = ts }
            lastTime = ts
        }
        if let s = r.object.string("session") { sessions.insert(s) }
        if let u = r.user { users.insert(u) }
    }

    /// Adds the counts of the next file of a series.
    mutating func add(_ next: AuditReport) {
        records += next.records
        firstSeq = firstSeq ?? next.firstSeq
        lastSeq = next.lastSeq ?? lastSeq
        lastHash = next.lastHash ?? lastHash
        firstTime = firstTime ?? next.firstTime
        lastTime = next.lastTime ?? lastTime
        sessions.formUnion(next.sessions)
        users.formUnion(next.users)
    }

    /// One line: `N records (seq A–B), FROM to TO, S sessions, U users; chain intact (ALG).`,
    /// after `F files, ` for a rotated series.
    public var summary: String {
        guard records > 0 else { return "0 records; nothing to check (\(algorithm))." }
        var out = files > 1 ? "\(files) files, " : ""
        out += "\(records) record\(records == 1 ? "" : "s") (seq \(firstSeq!)–\(lastSeq!))"
        if let firstTime, let lastTime { out += ", \(firstTime) to \(lastTime)" }
        out += ", \(sessions.count) session\(sessions.count == 1 ? "" : "s")"
        out += ", \(users.count) user\(users.count == 1 ? "" : "s")"
        out += isIntact ? "; chain intact (\(algorithm))." : " before the first failure (\(algorithm))."
        return out
    }
}

/// The first record that fails verification, and why.
public struct AuditProblem: Equatable, Sendable, CustomStringConvertible {
    public enum Kind: String, Equatable, Sendable {
        /// A record's content was changed (or a record before it was rehashed).
        case modified
        /// Records are missing from the middle (or the start) of the chain.
        case deleted
        /// A line that does not belong to the chain.
        case inserted
        /// Records are out of order.
        case reordered
        /// A record was cut short, or records were removed from the end.
        case truncated
        /// No record matches with this key.
        case wrongKey = "wrong key"
        /// A rotation was killed part-way: files renumbered or named twice, no record missing
        /// (`InterruptedRotation`); `ward audit verify --repair` puts them back.
        case interrupted = "interrupted rotation"
    }

    public let kind: Kind
    /// The 1-based line where the failure shows.
    public let line: Int
    /// The sequence number concerned, when known.
    public let seq: Int64?
    public let detail: String
    /// The file of a rotated series where the failure shows; nil for a single log.
    public var file: String? = nil

    public var description: String { "line \(line): \(kind.rawValue): \(detail)." }
}
