import WardCore

/// What `ward db migrate` did: the schema's version after it, and the migrations it applied.
///
/// The version is the number of migrations the database holds, which is also the number in the
/// name of the last one (`6-name-prefixes`): migrations are only ever added.
public struct SchemaMigration: Equatable, Sendable {
    public var version: Int
    /// The migrations this run applied, in order; empty when the schema was up to date.
    public var applied: [String]
    /// The role `--session-role` named, given exactly what a session needs; nil without it.
    public var sessionRole: String?

    public init(version: Int, applied: [String], sessionRole: String? = nil) {
        self.version = version
        self.applied = applied
        self.sessionRole = sessionRole
    }

    /// `schema at version 4, applied: 3-…, 4-…`, or `schema at version 4, already up to date`.
    public var summary: String {
        let schema =
            applied.isEmpty
            ? "schema at version \(version), already up to date"
            : "schema at version \(version), applied: \(applied.joined(separator: ", "))"
        guard let sessionRole else { return schema }
        return schema
            + "; session role \(sessionRole): SELECT on the records, INSERT on note and audit_record, its own rows of ward_session, nothing else"
    }
}
