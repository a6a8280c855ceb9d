import Logging

/// What a plugin's initializer may know about the session it will serve: where the home is, the
/// session limits, and a logger. Nothing else: an initializer validates its settings and builds
/// the plugin; it starts nothing (files, processes) until `added(context:)`.
///
/// The engine builds it from the site policy (`PluginEnvironment(home:policy:logger:)`), so a
/// plugin learns the limits without the site file's format.
public struct PluginEnvironment: Sendable {
    /// The Ward home (`--home`, `WARD_HOME`, `$XDG_DATA_HOME/ward`); the audit log's default place.
    public let home: String
    /// For diagnostics: names and counts only, never a key, a patient field or a secret.
    public let logger: Logger
    /// The limits before anyone has signed on: the site's, with the user file's stricter ones.
    public let sessionPolicy: SessionPolicy
    private let policyForSession: @Sendable (SessionInfo) -> SessionPolicy

    /// - Parameter policyForSession: The limits for a signed-on session (a `[user.NAME]` or
    ///   `[role.NAME]` table may change them); `sessionPolicy` for everyone when nil.
    public init(
        home: String,
        sessionPolicy: SessionPolicy = .defaults,
        logger: Logger = Logger(label: "ward.plugin"),
        policyForSession: (@Sendable (SessionInfo) -> SessionPolicy)? = nil
    ) {
        self.home = home
        self.logger = logger
        self.sessionPolicy = sessionPolicy
        self.policyForSession = policyForSession ?? { _ in sessionPolicy }
    }

    /// The limits for whoever is signed on now (`context.session`): ask again at `.signedOn`,
    /// since a `[user.NAME]` or `[role.NAME]` table may change them.
    public func sessionPolicy(for session: SessionInfo) -> SessionPolicy {
        policyForSession(session)
    }
}
