import WardPluginAPI

/// Which records `ward audit show` prints: all of these that are set must match.
public struct AuditFilter: Sendable {
    /// The user a record is about, exactly: the signed-on user (`user`), or the account an
    /// administrative command changed (`target`), so that `--user bob` also lists bob's
    /// `user-add` and `password-change`.
    public var user: String?
    /// The MRN a record names (`mrn`: what a command did to it, from the shell's access events),
    /// exactly, of any length; or, in logs written before access records, the chart open at the
    /// time (`chart`).
    public var mrn: String?
    /// From this time on, inclusive, in milliseconds since the epoch.
    public var since: Int64?
    /// Before this time, exclusive.
    public var until: Int64?
    /// Only records with one of these outcomes (`AuditRecord.outcome`); nil for any.
    public var outcomes: Set<RecordAccess.Outcome>?
    /// Only records of these kinds; nil for any.
    public var kinds: Set<AuditEntry.Kind>?

    public init(
        user: String? = nil,
        mrn: String? = nil,
        since: Int64? = nil,
        until: Int64? = nil,
        outcomes: Set<RecordAccess.Outcome>? = nil,
        kinds: Set<AuditEntry.Kind>? = nil
    ) {
        self.user = user
        self.mrn = mrn
        self.since = since
        self.until = until
        self.outcomes = outcomes
        self.kinds = kinds
    }

    public func matches(_ record: AuditRecord) -> Bool {
        if let user, record.user != user, record.object.string("target") != user { return false }
        if let mrn, record.object.string("mrn") != mrn, record.object.string("chart") != mrn { return false }
        if let kinds {
            guard let kind = record.kind.flatMap(AuditEntry.Kind.init(rawValue:)), kinds.contains(kind) else {
                return false
            }
        }
        if let outcomes {
            guard let outcome = record.outcome, outcomes.contains(outcome) else { return false }
        }
        if since != nil || until != nil {
            // The timestamps are fixed-width UTC, so the text compares as the time does.
            guard let ts = record.timestamp else { return false }
            if let since, ts < UTCTimestamp.format(milliseconds: since) { return false }
            if let until, ts >= UTCTimestamp.format(milliseconds: until) { return false }
        }
        return true
    }

    /// Parses `--kind` values: each may be a comma-separated list. Throws the first value that
    /// is not a kind, as written, for the usage error to name.
    public static func kinds(_ values: [String]) throws(UnknownKind) -> Set<AuditEntry.Kind> {
        var kinds: Set<AuditEntry.Kind> = []
        for name in values.flatMap({ $0.split(separator: ",", omittingEmptySubsequences: false) }) {
            let name = name.trimmingSpaces
            guard let kind = AuditEntry.Kind(rawValue: name) else { throw UnknownKind(value: name) }
            kinds.insert(kind)
        }
        return kinds
    }

    /// A `--kind` value that names no record kind.
    public struct UnknownKind: Error, Equatable, Sendable {
        public var value: String

        public init(value: String) {
            self.value = value
        }
    }
}

extension AuditRecord {
    /// How the event a record tells of ended, for `--outcome` and the table's OUTCOME column:
    /// the record's own `outcome` field (an access, a break-the-glass, an administrative
    /// command); `denied` for a refusal that has no such field (a `denied` line, a
    /// `sign-on-failed`, an `unlock-failed`); nil for every other kind.
    public var outcome: RecordAccess.Outcome? {
        if let field = object.string("outcome") { return RecordAccess.Outcome(rawValue: field) }
        switch kind.flatMap(AuditEntry.Kind.init(rawValue:)) {
        case .denied, .signOnFailed, .unlockFailed: return .denied
        default: return nil
        }
    }
}

extension Substring {
    fileprivate var trimmingSpaces: String {
        String(drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
    }
}
