import AuditLog
import Dispatch
import Logging
import Synchronization
import WardRecords

/// Sends each audit record, once it is in the file, to the site's database
/// (`PostgresAuditTrail`), keyed by this log's chain (`AuditChainIdentity`): the one trail an
/// auditor reads with `ward audit show --all-hosts`.
///
/// The file is the primary and stays so: a record reaches the database only after the file
/// has it, and a database that cannot take it neither loses nor holds up the record there,
/// nor locks the session. So the session does not wait for the database either: records are
/// sent from a queue of their own, in order, and a command's result is shown while its records
/// are on their way: the sign-on does not wait for a connection, nor a command for a round trip
/// to the server. What could not be sent waits here, in order, and goes with the next record
/// once the database answers again; at most `backlogLimit` records wait, the oldest given up
/// first. After a failure the database is left alone for `retryInterval`, so that a server that
/// is down costs one wait of `connect-timeout` per interval, not one per record. `close()` waits
/// for what is on its way and makes a last try; records given up, and those still waiting then,
/// are in the file only: `ward audit verify --all-hosts` names each such gap by host and seq,
/// and the host's own `ward audit verify` checks them.
///
/// - Important: Not `Sendable`: `append` and `close` come from the loop's thread. What the
///   queue shares with it is in `Outbox`.
final class DatabaseAuditSink: AuditSink {
    /// Records kept for a database that is away: about 4 MB of lines.
    static let backlogLimit = 10_000
    /// How long a failed send leaves the database alone.
    static let retryInterval: Duration = .seconds(30)

    /// This log's chain.
    let chain: String
    private let outbox: Outbox
    /// One send at a time, in the order the records were written.
    private let queue = DispatchQueue(label: "ward.audit.database")

    /// - Parameter now: The time, for the retry interval.
    init(
        trail: PostgresAuditTrail,
        chain: String,
        logger: Logger,
        now: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }
    ) {
        self.chain = chain
        self.outbox = Outbox(trail: trail, logger: logger, now: now)
    }

    func append(_ records: [AuditWriter.Written]) {
        guard outbox.add(records.compactMap(row)) else { return }
        queue.async { [outbox] in outbox.send() }
    }

    /// Waits for what is on its way, then a last try for what still waits (each bounded by the
    /// site's `connect-timeout` and `statement-timeout`).
    func close() {
        queue.sync { [outbox] in outbox.finish() }
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

extension DatabaseAuditSink {
    /// The records between the loop's thread, which adds them, and the queue, which sends them.
    final class Outbox: Sendable {
        struct State {
            /// Records in the file that the database does not have yet, oldest first.
            var waiting: [PostgresAuditTrail.Row] = []
            /// Records given up because more than `backlogLimit` waited.
            var givenUp = 0
            var quietUntil: ContinuousClock.Instant?
            /// A send is queued that has not taken `waiting` yet: another would find nothing.
            var isQueued = false
        }

        let state = Mutex(State())
        private let trail: PostgresAuditTrail
        private let logger: Logger
        private let now: @Sendable () -> ContinuousClock.Instant

        init(trail: PostgresAuditTrail, logger: Logger, now: @escaping @Sendable () -> ContinuousClock.Instant) {
            self.trail = trail
            self.logger = logger
            self.now = now
        }

        /// Keeps `rows`; true when a send should be queued for them (none is, and the database
        /// is not being left alone).
        func add(_ rows: [PostgresAuditTrail.Row]) -> Bool {
            let instant = now()
            return state.withLock { state in
                state.waiting += rows
                state.trim()
                if let quietUntil = state.quietUntil, instant < quietUntil { return false }
                guard !state.isQueued else { return false }
                state.isQueued = true
                return true
            }
        }

        /// Sends what waits, unless a failure made the database quiet meanwhile. On the queue.
        func send() {
            let instant = now()
            let rows = state.withLock { state in
                state.isQueued = false
                if let quietUntil = state.quietUntil, instant < quietUntil { return [PostgresAuditTrail.Row]() }
                return state.taken()
            }
            deliver(rows)
        }

        /// The session ends: a last try for what still waits, then the trail is closed. On the queue.
        func finish() {
            deliver(state.withLock { $0.taken() })
            let (waiting, givenUp) = state.withLock { ($0.waiting.count, $0.givenUp) }
            if waiting > 0 || givenUp > 0 {
                logger.warning(
                    "audit records left in the file only",
                    metadata: ["audit.waiting": "\(waiting)", "audit.given-up": "\(givenUp)"]
                )
            }
            trail.close()
        }

        /// Sends `rows`; on failure puts them back before what came meanwhile and goes quiet for
        /// `retryInterval`.
        private func deliver(_ rows: [PostgresAuditTrail.Row]) {
            guard !rows.isEmpty else { return }
            do {
                try trail.append(rows)
                state.withLock { $0.quietUntil = nil }
            } catch {
                let waiting = state.withLock { state in
                    state.waiting = rows + state.waiting
                    state.trim()
                    state.quietUntil = now() + DatabaseAuditSink.retryInterval
                    return state.waiting.count
                }
                // The error names the server and a SQLSTATE, never a record's content. Not shown
                // by default: a failover costs a few failed sends, and the session has nothing to
                // do about them; what is still waiting at the end is (`finish`).
                logger.info(
                    "audit records not sent to the database",
                    metadata: ["audit.waiting": "\(waiting)", "audit.error": "\(error)"]
                )
            }
        }
    }
}

extension DatabaseAuditSink.Outbox.State {
    /// Gives up the oldest records past `backlogLimit`.
    mutating func trim() {
        let over = waiting.count - DatabaseAuditSink.backlogLimit
        guard over > 0 else { return }
        givenUp += over
        waiting.removeFirst(over)
    }

    /// What waits, which no longer does.
    mutating func taken() -> [PostgresAuditTrail.Row] {
        defer { waiting = [] }
        return waiting
    }
}

@available(*, unavailable)
extension DatabaseAuditSink: Sendable {}
