import ArgumentParser
import AuditLog
import BuiltInPlugins
import WardCore
import WardRecords

/// Every host's audit records in the site's database (`PostgresAuditTrail`): what `ward audit
/// show --all-hosts` lists and `ward audit verify --all-hosts` checks, chain by chain.
///
/// Read with the site file's `[records]` url, so an auditor runs these with a site file of
/// their own (`--site`) naming a role that may read `audit_record` (man/ward.1 AUDIT): the
/// sessions' role may only add rows there.
struct SiteAuditTrail {
    /// Every row, by host, chain and seq.
    let rows: [PostgresAuditTrail.Row]
    /// The database, as messages name it.
    let source: String

    /// Reads every row.
    ///
    /// - Throws: a usage error (64) for a site whose records are not on PostgreSQL; `StoreError`
    ///   when the server cannot be reached (69) or the role may not read the trail.
    static func read(global: GlobalOptions) throws -> SiteAuditTrail {
        let policy = try SitePolicy.load(siteOption: global.site, plugins: pluginRegistry)
        guard policy.records.backend == .postgresql, let url = policy.records.url else {
            throw ValidationError(
                "--all-hosts reads the site's database, and this site's records are not on PostgreSQL "
                    + "([records] backend = \"postgresql\"); each host's own log is read without it."
            )
        }
        let settings = try PostgresSettings(policy: policy.records, url: url)
        let trail = PostgresAuditTrail(settings: settings)
        defer { trail.close() }
        return SiteAuditTrail(rows: try trail.all(), source: "audit_record in \(settings.database) on \(trail.server)")
    }

    /// The rows' lines oldest first across hosts (by their UTC time, then host and seq), for
    /// `AuditQuery`.
    var sortedByTime: [ArraySlice<UInt8>] {
        rows.map { row in (time: AuditRecord(line: 0, bytes: Array(row.line.utf8)[...])?.timestamp ?? "", row: row) }
            .sorted { ($0.time, $0.row.host, $0.row.seq) < ($1.time, $1.row.host, $1.row.seq) }
            .map { Array($0.row.line.utf8)[...] }
    }

    /// One chain's rows, as `verify` found them.
    struct ChainReport: Equatable {
        var host: String
        var chain: String
        var records = 0
        var firstSeq: Int64?
        var lastSeq: Int64?
        /// Seq ranges the database lacks between its first and last record: in the host's
        /// file only (the database was away, or a row was removed).
        var gaps: [ClosedRange<Int64>] = []
        /// The first record that is not what its host wrote; nil when every one is.
        var problem: String?

        /// `host ward-1, chain 3f9c2a1b: 12 records, seq 1-12, intact`.
        var summary: String {
            let span = firstSeq.map { "seq \($0)-\(lastSeq ?? $0)" } ?? "no records"
            return "host \(host), chain \(chain.prefix(8)): \(records) record\(records == 1 ? "" : "s"), \(span)"
        }
    }

    /// Checks each chain on its own, with `chain`'s key: every row's hash against its body,
    /// its seq and hash against the row's, and each record's `prev` against the record before
    /// when the database has that one. A gap is reported, not failed: the records are in the
    /// host's file, which `ward audit verify` on that host checks.
    func verify(with chain: AuditChain) -> [ChainReport] {
        var reports: [ChainReport] = []
        var index = rows.startIndex
        while index < rows.endIndex {
            let first = rows[index]
            var end = index
            while end < rows.endIndex, rows[end].chain == first.chain, rows[end].host == first.host { end += 1 }
            reports.append(Self.verify(rows[index..<end], with: chain))
            index = end
        }
        return reports
    }

    private static func verify(_ rows: ArraySlice<PostgresAuditTrail.Row>, with chain: AuditChain) -> ChainReport {
        var report = ChainReport(host: rows.first?.host ?? "", chain: rows.first?.chain ?? "")
        var previous: (seq: Int64, hash: String)?
        for row in rows {
            let which = "record \(row.seq) of host \(row.host), chain \(row.chain.prefix(8))"
            guard let record = AuditRecord(line: 0, bytes: Array(row.line.utf8)[...]) else {
                report.problem = report.problem ?? "\(which) is not a record"
                break
            }
            let valid = chain.hash(prev: record.prev, body: record.body) == record.hash
            if !valid || record.seq != row.seq || record.hash != row.hash {
                report.problem = report.problem ?? "\(which) was changed in the database: its hash does not match"
                break
            }
            if let previous {
                if row.seq == previous.seq + 1 {
                    if record.prev != previous.hash {
                        report.problem = "\(which) does not follow record \(previous.seq): the chain is broken"
                        break
                    }
                } else {
                    report.gaps.append((previous.seq + 1)...(row.seq - 1))
                }
            }
            previous = (row.seq, row.hash)
            report.records += 1
            report.firstSeq = report.firstSeq ?? row.seq
            report.lastSeq = row.seq
        }
        // Not one record matches: the key, not the records, is what differs.
        let anyValid = rows.contains { row in
            AuditRecord(line: 0, bytes: Array(row.line.utf8)[...]).map {
                chain.hash(prev: $0.prev, body: $0.body) == $0.hash
            }
                ?? false
        }
        if !anyValid, report.problem != nil, let first = rows.first {
            report.problem =
                "no record of host \(first.host), chain \(first.chain.prefix(8)) matches the key: "
                + (chain.isKeyed
                    ? "it was written with another key, or none (verify without --key-file)"
                    : "it was written with a key (pass --key-file)")
        }
        return report
    }
}

/// A chain in the site's database that is not what its host wrote: exit 65, as a log that fails
/// verification.
struct SiteAuditTrailError: WardError, Equatable {
    let problem: String

    var description: String { "\(problem)." }
    var exitStatus: ExitStatus { .dataError }
}
