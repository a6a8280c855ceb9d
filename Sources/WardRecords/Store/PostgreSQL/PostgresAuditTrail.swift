import PostgresNIO
import WardCore

/// The site's audit trail in its PostgreSQL database (migration `10-audit-trail`): every host's
/// audit records, each row one record as its host's file holds it.
///
/// A row is keyed by its chain and its seq. A chain is one audit log's: its host name alone
/// would not do, since two homes on one host (or two hosts of one name) each write a chain of
/// their own from seq 1. The file stays the primary and the row a copy: the hash in the line
/// is checked against the chain's key by whoever reads it (`ward audit verify --all-hosts`),
/// never trusted because it is in the database.
///
/// Sessions write with the session role, which may only INSERT here
/// (`PostgresSchema.grantSessionPrivileges`): no session can change or remove another host's
/// records, nor read them. A row sent twice (a reply lost after the commit) is kept once.
/// Readers (auditors) connect as a role with SELECT on `audit_record` (man/ward.1 AUDIT).
///
/// `Sendable` as its connection is, for a session's sink, which sends from a queue of its own;
/// like the connection, it takes one call at a time.
public final class PostgresAuditTrail: Sendable {
    /// One record of one chain.
    public struct Row: Sendable, Equatable {
        /// The audit log the record is from (`AuditChainIdentity`).
        public var chain: String
        public var seq: Int64
        /// The host the record names, as its writer saw it.
        public var host: String
        public var hash: String
        /// The record's line as in the file, without its newline.
        public var line: String

        public init(chain: String, seq: Int64, host: String, hash: String, line: String) {
            self.chain = chain
            self.seq = seq
            self.host = host
            self.hash = hash
            self.line = line
        }
    }

    private let link: PostgresLink

    /// Its connections' `application_name`: not `ward`, so that `ward db migrate` counts each
    /// session once, by its records connection.
    static let applicationName = "ward-audit"

    /// Connects on first use, and again after a lost connection (`PostgresLink`).
    public init(settings: PostgresSettings) {
        link = PostgresLink(settings: settings, applicationName: Self.applicationName)
    }

    deinit { link.close() }

    /// The servers, as messages name them.
    public var server: String { link.server }

    /// Adds `rows` in one statement; a row already there is left as it is. No conflict target:
    /// naming one (the key's columns) needs SELECT on them, which the session role lacks.
    ///
    /// - Throws: `StoreError` when the server cannot be reached or refuses.
    public func append(_ rows: [Row]) throws {
        guard !rows.isEmpty else { return }
        try link.query(
            """
            INSERT INTO audit_record (chain, seq, host, hash, line)
            SELECT * FROM unnest(\(rows.map(\.chain))::text[], \(rows.map(\.seq))::bigint[],
                \(rows.map(\.host))::text[], \(rows.map(\.hash))::text[], \(rows.map(\.line))::text[])
            ON CONFLICT DO NOTHING
            """
        )
    }

    /// Every record of every chain, by host, chain and seq: what `--all-hosts` reads.
    ///
    /// - Throws: `StoreError` when the server cannot be reached, or the role may not read them.
    public func all() throws -> [Row] {
        let rows = try link.query("SELECT chain, seq, host, hash, line FROM audit_record ORDER BY host, chain, seq")
        return try PostgresLink.decoded {
            try rows.map { row in
                let (chain, seq, host, hash, line) = try row.decode((String, Int64, String, String, String).self)
                return Row(chain: chain, seq: seq, host: host, hash: hash, line: line)
            }
        }
    }

    /// Closes the connection; the next call connects again.
    public func close() { link.close() }
}
