import PostgresNIO
import WardCore

/// What `ward config check` asks of a site whose records are on PostgreSQL: can the server be
/// reached, does the database hold this Ward's schema (every migration, none newer), and does
/// the user the site file connects as hold exactly what a session needs
/// (`PostgresSchema.sessionPrivilegeProblem`, the check `ward db migrate --session-role` ends
/// with). Read only: it changes nothing on the server.
public struct PostgresSiteCheck: Sendable, Equatable {
    /// The server connected to.
    public var server: String
    public var database: String
    /// The user the site file connects as: the sessions'.
    public var user: String
    /// What the schema lacks, or why it cannot be used; nil when it is this Ward's.
    public var schemaProblem: String?
    /// What the user may do beyond a session's needs, or lacks of them; nil when exactly right,
    /// and when the schema was not there to check against.
    public var privilegeProblem: String?
    /// Whether `privilegeProblem` is a right too many (sessions work, with more than they need)
    /// rather than one missing (some of what they do is refused).
    public var privilegesExceed = false

    /// Connects with `settings`, checks, and closes.
    ///
    /// - Throws: `StoreError.unavailable` when no server can be reached; `StoreError.database`
    ///   when a check itself is refused.
    public static func run(settings: PostgresSettings) throws -> PostgresSiteCheck {
        let link = PostgresLink(settings: settings, applicationName: PostgresLink.migrationApplicationName)
        try link.connect()
        defer { link.close() }
        var check = PostgresSiteCheck(
            server: link.server,
            database: settings.database,
            user: settings.user,
            schemaProblem: nil,
            privilegeProblem: nil
        )
        do {
            try PostgresSchema.requireCurrent(link)
        } catch let error as SchemaError {
            check.schemaProblem = error.description
            if case .notCreated = error { return check }
        } catch let error as StoreError {
            check.schemaProblem = error.description
            return check
        }
        check.privilegeProblem = try PostgresSchema.sessionPrivilegeProblem(link, role: settings.user)
        check.privilegesExceed = check.privilegeProblem?.hasPrefix(PostgresSchema.excessPrefix) == true
        return check
    }
}
