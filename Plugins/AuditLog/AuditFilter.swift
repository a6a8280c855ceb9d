import WardPluginAPI

/// Which records `ward audit show` prints: every filter that is set must match, and a filter
/// of several values matches any one of them (`--user alice --user audrey`).
public struct AuditFilter: Sendable {
    /// The users a record may be about, exactly: the signed-on user (`user`), or the account an
    /// administrative command changed (`target`), so that `--user bob` also lists bob's
    /// `user-add` and `password-change`.
    public var users: Set<String>?
    /// The MRNs a record may name, ignoring ASCII case as MRNs are compared (`mrn`: what a
    /// command did to it; or, in logs written before access records, the chart open at the time,
    /// `chart`), each whole and of any length. `AuditFilter.resolve` turns typed prefixes into these.
    public var mrns: Set<String>?
    /// From this time on, inclusive, in milliseconds since the epoch.
    public var since: Int64?
    /// Before this time, exclusive.
    public var until: Int64?
    /// Only records with one of these outcomes (`AuditRecord.outcome`); nil for any.
    public var outcomes: Set<RecordAccess.Outcome>?
    /// Only records of these kinds; nil for any.
    public var kinds: Set<AuditEntry.Kind>?
    /// Only what was done to a record: these `AuditRecord.action`s (list, open, read, write,
    /// close, break-glass); nil for any record.
    public var actions: Set<String>?

    /// The actions `--action` takes.
    public static let actionNames = ["list", "open", "read", "write", "close", "break-glass"]

    public init(
        users: Set<String>? = nil,
        mrns: Set<String>? = nil,
        since: Int64? = nil,
        until: Int64? = nil,
        outcomes: Set<RecordAccess.Outcome>? = nil,
        kinds: Set<AuditEntry.Kind>? = nil,
        actions: Set<String>? = nil
    ) {
        self.users = users
        self.mrns = mrns.map { Set($0.map(Self.folded)) }
        self.since = since
        self.until = until
        self.outcomes = outcomes
        self.kinds = kinds
        self.actions = actions
    }

    /// The records about one user.
    public init(user: String) { self.init(users: [user]) }

    /// The records that name one MRN.
    public init(mrn: String) { self.init(mrns: [mrn]) }

    public func matches(_ record: AuditRecord) -> Bool {
        if let users {
            guard record.user.map(users.contains) == true || record.object.string("target").map(users.contains) == true
            else { return false }
        }
        if let mrns {
            guard let mrn = record.mrn, mrns.contains(Self.folded(mrn)) else { return false }
        }
        if let actions {
            guard let action = record.action, actions.contains(action) else { return false }
        }
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

    /// `mrn` with its ASCII letters in lower case: two MRNs are the same MRN when these are.
    public static func folded(_ mrn: String) -> String {
        String(decoding: mrn.utf8.map { (65...90).contains($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
    }

    /// What an MRN typed for `--mrn` stands for among the MRNs the log names: itself when the log
    /// names it (ignoring case), else the one MRN it starts, as `open` takes a prefix.
    public enum Resolved: Equatable, Sendable {
        case mrn(String)
        /// No record names an MRN that is or starts with it.
        case unknown
        /// Several MRNs start with it: these, sorted.
        case ambiguous([String])
    }

    /// Resolves `typed` against `known`, the folded MRNs the log names.
    public static func resolve(_ typed: String, among known: Set<String>) -> Resolved {
        let prefix = folded(typed)
        if known.contains(prefix) { return .mrn(prefix) }
        let starting = known.filter { $0.hasPrefix(prefix) }.sorted()
        switch starting.count {
        case 0: return .unknown
        case 1: return .mrn(starting[0])
        default: return .ambiguous(starting)
        }
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
    /// The MRN a record names: what a command did to it (`mrn`), or in logs written before
    /// access records the chart open at the time (`chart`).
    public var mrn: String? { object.string("mrn") ?? object.string("chart") }

    /// What was done to a record: an access's `action` (list, open, read, write, close), or
    /// `break-glass`; nil for every other record.
    public var action: String? {
        switch kind {
        case AuditEntry.Kind.access.rawValue: return object.string("action")
        case AuditEntry.Kind.breakGlass.rawValue: return "break-glass"
        default: return nil
        }
    }

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
