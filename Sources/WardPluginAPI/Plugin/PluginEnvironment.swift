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
    /// The names a command line may start with (the shell's commands and their aliases), from
    /// the shell's own table (`Shell.commands`). A plugin that keeps a line's first word (the
    /// audit log) keeps it only when it is one of these: anything else may be a password typed
    /// at the prompt, or a patient's name. Empty where no shell runs (`ward config check`).
    public let commandNames: Set<String>
    private let policyForSession: @Sendable (SessionInfo) -> SessionPolicy

    /// - Parameter policyForSession: The limits for a signed-on session (a `[user.NAME]` or
    ///   `[role.NAME]` table may change them); `sessionPolicy` for everyone when nil.
    public init(
        home: String,
        sessionPolicy: SessionPolicy = .defaults,
        logger: Logger = Logger(label: "ward.plugin"),
        commandNames: Set<String> = [],
        policyForSession: (@Sendable (SessionInfo) -> SessionPolicy)? = nil
    ) {
        self.home = home
        self.logger = logger
        self.sessionPolicy = sessionPolicy
        self.commandNames = commandNames
        self.policyForSession = policyForSession ?? { _ in sessionPolicy }
    }

    /// The limits for whoever is signed on now (`context.session`): ask again at `.signedOn`,
    /// since a `[user.NAME]` or `[role.NAME]` table may change them.
    public func sessionPolicy(for session: SessionInfo) -> SessionPolicy {
        policyForSession(session)
    }
}
