import WardCore

/// Why the records schema is not the one this Ward reads, or why `ward db migrate` did not
/// change it.
///
/// A session never migrates a shared (PostgreSQL) database: a migration takes locks that every
/// other host's sessions would wait on, and the database user of a session needs no right to
/// create tables. It stops instead, before sign-on, with the command that fixes it. A database a
/// newer Ward wrote is `StoreError.migrationFailed`, as it is for SQLite.
///
/// - Important: no case carries a patient field; the client addresses named are the servers'
///   own record of who is connected, never what they read.
public enum SchemaError: WardError, Equatable, Sendable {
    /// The database has no Ward schema at all: `ward db migrate` has never run on it.
    case notCreated(server: String, database: String)
    /// The database holds an older schema: `pending` are the migrations this Ward has and it has not.
    case outdated(server: String, database: String, pending: [String])
    /// `ward db migrate` found migrations to apply while Ward sessions were connected
    /// (`sessions`, from `clients`: addresses, `local socket`, a terminal), and was not forced.
    case sessionsConnected(target: String, pending: [String], sessions: Int, clients: [String])
    /// `--session-role` names a role that cannot be held to what sessions need: none of that
    /// name, or one whose rights grants cannot narrow (a superuser, the tables' owner, a member
    /// of the owner's role). Nothing was changed.
    case unsuitableSessionRole(role: String, server: String, reason: String)

    public var description: String {
        switch self {
        case .notCreated(let server, let database):
            return "the records database \(database) on \(server) has no Ward schema yet; "
                + "an administrator creates it with 'ward db migrate' (see DATABASE in ward(1))"
        case .outdated(let server, let database, let pending):
            return "the records database \(database) on \(server) has an older schema than this Ward "
                + "(missing \(pending.joined(separator: ", "))); an administrator upgrades it with "
                + "'ward db migrate' (see DATABASE in ward(1))"
        case .sessionsConnected(let target, let pending, let sessions, let clients):
            let who = sessions == 1 ? "1 Ward session is" : "\(sessions) Ward sessions are"
            return "\(who) connected to \(target) (from \(clients.joined(separator: ", "))), and migrating "
                + "(\(pending.joined(separator: ", "))) would lock tables they read. Nothing was changed. "
                + "Run it again when they have signed off or locked (a locked session holds no connection), "
                + "or with --force."
        case .unsuitableSessionRole(let role, let server, let reason):
            return "--session-role \(role): \(reason) on \(server). Nothing was changed."
        }
    }

    public var exitStatus: ExitStatus {
        switch self {
        case .notCreated, .outdated, .unsuitableSessionRole: .configuration
        case .sessionsConnected: ExitStatus(rawValue: 75)  // EX_TEMPFAIL: try again later
        }
    }
}
