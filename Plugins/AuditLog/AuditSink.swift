/// A second place each record goes once it is in the file: the site's shared database, when
/// its records are on PostgreSQL (the executable's `DatabaseAuditSink`).
///
/// A protocol here, its implementation elsewhere: the plugin depends on the API and support
/// targets only, and a database is not its business. The file stays the primary: a record is
/// handed over only once it is written there, and whatever becomes of it after cannot undo or
/// hold up that write. Unlike syslog forwarding, a record the sink cannot pass on never locks the
/// session: the file holds it, the sink keeps it for later or leaves a gap that `ward audit
/// verify --all-hosts` names.
public protocol AuditSink: AnyObject {
    /// Takes `records`, in the file and in order. Must not throw, and must not wait long: a
    /// session is waiting on its command.
    func append(_ records: [AuditWriter.Written])

    /// The session ends: a last try for what is still waiting, then the sink is done.
    func close()
}
