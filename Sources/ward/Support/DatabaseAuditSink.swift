import AuditLog
import Logging
import WardRecords

/// Sends each audit record, once it is in the file, to the site's database
/// (`PostgresAuditTrail`), keyed by this log's chain (`AuditChainIdentity`): the one trail an
/// auditor reads with `ward audit show --all-hosts`.
///
/// The file is the primary and stays so: a record reaches the database only after the file
/// has it, and a database that cannot take it neither loses nor holds up the record there,
/// nor locks the session. What could not be sent waits here, in order, and goes with the next
/// record once the database answers again; at most `backlogLimit` records wait, the oldest
/// given up first. After a failure the database is left alone for `retryInterval`, so that a
/// server that is down costs one wait of `connect-timeout` per interval, not one per record.
/// Records given up, and those still waiting when the session ends, are in the file only:
/// `ward audit verify --all-hosts` names each such gap by host and seq, and the host's own
/// `ward audit verify` checks them.
final class DatabaseAuditSink: AuditSink {
    /// Records kept for a database that is away: about 4 MB of lines.
    static let backlogLimit = 10_000
    /// How long a failed send leaves the database alone.
    static let retryInterval: Duration = .seconds(30)

    private let trail: PostgresAuditTrail
    /// This log's chain.
    let chain: String
    private let logger: Logger
    private let now: () -> ContinuousClock.Instant
    /// Records in the file that the database does not have yet, oldest first.
    private(set) var waiting: [PostgresAuditTrail.Row] = []
    /// Records given up because more than `backlogLimit` waited.
    private(set) var givenUp = 0
    private var quietUntil: ContinuousClock.Instant?

    /// - Parameter now: The time, for the retry interval; tests pass their own.
    init(
        trail: PostgresAuditTrail,
        chain: String,
        logger: Logger,
        now: @escaping () -> ContinuousClock.Instant = { ContinuousClock.now }
    ) {
        self.trail = trail
        self.chain = chain
        self.logger = logger
        self.now = now
    }

    func append(_ records: [AuditWriter.Written]) {
        waiting += records.compactMap(row)
        if waiting.count > Self.backlogLimit {
            givenUp += waiting.count - Self.backlogLimit
            waiting.removeFirst(waiting.count - Self.backlogLimit)
        }
        if let quietUntil, now() < quietUntil { return }
        send()
    }

    func close() {
        if !waiting.isEmpty { send() }
        if !waiting.isEmpty || givenUp > 0 {
            logger.warning(
                "audit records left in the file only",
                metadata: ["audit.waiting": "\(waiting.count)", "audit.given-up": "\(givenUp)"]
            )
        }
        trail.close()
    }

    /// Sends what waits; on failure keeps it and goes quiet for `retryInterval`.
    private func send() {
        do {
            try trail.append(waiting)
            waiting.removeAll()
            quietUntil = nil
        } catch {
            quietUntil = now() + Self.retryInterval
            // The error names the server and a SQLSTATE, never a record's content. Not shown by
            // default: a failover costs a few failed sends, and the session has nothing to do
            // about them; what is still waiting at the end is (`close`).
            logger.info(
                "audit records not sent to the database",
                metadata: ["audit.waiting": "\(waiting.count)", "audit.error": "\(error)"]
            )
        }
    }

    /// The row of a record as the writer wrote it; nil for a line that is not one (never: the
    /// writer made it).
    private func row(_ written: AuditWriter.Written) -> PostgresAuditTrail.Row? {
        guard let record = AuditRecord(line: 0, bytes: written.line) else { return nil }
        return PostgresAuditTrail.Row(
            chain: chain,
            seq: record.seq,
            host: record.object.string("host") ?? "",
            hash: record.hash,
            line: String(decoding: written.line, as: UTF8.self)
        )
    }
}
