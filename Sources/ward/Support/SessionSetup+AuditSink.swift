import AuditLog
import Logging
import WardCore
import WardRecords

extension SessionSetup {
    /// The database copy of the site's audit log when its records are on PostgreSQL, nil
    /// otherwise: sessions and administrative commands alike send their records there
    /// (`DatabaseAuditSink`), keyed by the log's chain.
    ///
    /// - Throws: `AuthError` for a `password-file` that cannot be read; `FileSecurityError`
    ///   for a `FILE.chain` beside the log that is not safe (as the log itself would be), or
    ///   cannot be made.
    static func databaseAuditSink(policy: SitePolicy, home: WardHome, logger: Logger) throws -> DatabaseAuditSink? {
        guard case .postgresql(let settings) = try StoreBackend(records: policy.records, home: home) else {
            return nil
        }
        guard let log = auditLogPath(policy: policy, home: home) else { return nil }
        return DatabaseAuditSink(
            trail: PostgresAuditTrail(settings: settings),
            chain: try AuditChainIdentity.load(forLog: log),
            logger: logger
        )
    }

    /// The file the site's audit log writes: its `path`, else the home's; nil when the site's
    /// chain has no audit log.
    static func auditLogPath(policy: SitePolicy, home: WardHome) -> String? {
        guard let settings = policy.plugins.first(where: { $0.name == AuditLog.name }) else { return nil }
        return (try? settings.string("path")).flatMap { $0 } ?? home.auditLogPath
    }
}
