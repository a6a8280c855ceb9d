import Logging

/// What a plugin's factory may know about the session it will serve: where the home is, the
/// policy, and a logger. Nothing else: a factory validates its settings and builds the
/// interceptor; it starts nothing (files, processes) until `added(context:)`.
public struct PluginEnvironment: Sendable {
    /// The Ward home (`--home`, `WARD_HOME`, `$XDG_DATA_HOME/ward`); the audit log's default place.
    public let home: String
    /// The site policy with the user file applied.
    public let policy: SitePolicy
    /// For diagnostics: names and counts only, never a key, a patient field or a secret.
    public let logger: Logger

    public init(home: String, policy: SitePolicy, logger: Logger = Logger(label: "ward.plugin")) {
        self.home = home
        self.policy = policy
        self.logger = logger
    }

    /// The limits before anyone has signed on: the site's, with the user file's stricter ones.
    public var sessionPolicy: SessionPolicy { policy.effectivePolicy(user: nil, role: nil) }

    /// The limits for whoever is signed on now (`context.session`): ask again at `.signedOn`,
    /// since a `[user.NAME]` or `[role.NAME]` table may change them.
    public func sessionPolicy(for session: SessionInfo) -> SessionPolicy {
        policy.effectivePolicy(user: session.user, role: session.role?.rawValue)
    }
}
