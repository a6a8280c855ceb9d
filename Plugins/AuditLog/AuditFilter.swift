/// Which records `ward audit show` prints: all of these that are set must match.
public struct AuditFilter: Sendable {
    /// The `user` field, exactly.
    public var user: String?
    /// The MRN a record names (`mrn`: what a command did to it, from the shell's access events),
    /// exactly, of any length; or, in logs written before access records, the chart open at the
    /// time (`chart`).
    public var mrn: String?
    /// From this time on, inclusive, in milliseconds since the epoch.
    public var since: Int64?
    /// Before this time, exclusive.
    public var until: Int64?

    public init(user: String? = nil, mrn: String? = nil, since: Int64? = nil, until: Int64? = nil) {
        self.user = user
        self.mrn = mrn
        self.since = since
        self.until = until
    }

    public func matches(_ record: AuditRecord) -> Bool {
        if let user, record.user != user { return false }
        if let mrn, record.object.string("mrn") != mrn, record.object.string("chart") != mrn { return false }
        if since != nil || until != nil {
            // The timestamps are fixed-width UTC, so the text compares as the time does.
            guard let ts = record.timestamp else { return false }
            if let since, ts < UTCTimestamp.format(milliseconds: since) { return false }
            if let until, ts >= UTCTimestamp.format(milliseconds: until) { return false }
        }
        return true
    }
}
