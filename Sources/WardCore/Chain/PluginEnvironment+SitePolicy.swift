import Logging

extension PluginEnvironment {
    /// The environment of a session under `policy`: its limits before sign-on, and for each
    /// signed-on user the limits of their `[user.NAME]` or `[role.NAME]` table, the user file's
    /// stricter ones on top (`SitePolicy.effectivePolicy(user:role:)`).
    ///
    /// - Parameter commandNames: The shell's command names and aliases (`PluginEnvironment.commandNames`).
    public init(
        home: String,
        policy: SitePolicy,
        logger: Logger = Logger(label: "ward.plugin"),
        commandNames: Set<String> = []
    ) {
        self.init(
            home: home,
            sessionPolicy: policy.effectivePolicy(user: nil, role: nil),
            logger: logger,
            commandNames: commandNames,
            policyForSession: { session in policy.effectivePolicy(user: session.user, role: session.role) }
        )
    }
}
