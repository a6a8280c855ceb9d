import Glibc
import WardPluginAPI

extension AuditWriter {
    /// Puts back what a killed rotation left beside the log (`InterruptedRotation`) and writes a
    /// `repair` record saying what was done; nil when it left nothing.
    ///
    /// Called by `ward audit rotate` before it rotates, by `ward audit verify --repair`, and by
    /// the audit log at each sign-on, so a rotation killed part-way never stops the sessions or
    /// the next rotation. The log's lock is held throughout: a rotation running now (not killed)
    /// holds it too, and is waited for rather than taken for an interrupted one.
    @discardableResult
    public func repairInterruptedRotation(
        session: AuditRecord.SessionFields,
        source: String?
    ) throws(AuditError) -> InterruptedRotation? {
        // Cheap when there is nothing: a directory listing and a stat, without the lock.
        guard InterruptedRotation.find(log: path) != nil else { return nil }
        try lockCurrentLog()
        defer { _ = flock(log, LOCK_UN) }
        return try repairLocked(session: session, source: source)
    }

    /// `repairInterruptedRotation` for a caller that holds the log's lock (`rotate`).
    @discardableResult
    func repairLocked(session: AuditRecord.SessionFields, source: String?) throws(AuditError) -> InterruptedRotation? {
        guard let found = InterruptedRotation.find(log: path) else { return nil }
        try found.rollBack()
        let tail = try readTail()
        _ = try writeRecord(
            .repair(found.description, by: administrator),
            session: session,
            source: source,
            after: tail
        )
        return found
    }
}
