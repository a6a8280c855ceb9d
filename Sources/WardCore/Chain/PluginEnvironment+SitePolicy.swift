import Logging

extension PluginEnvironment {
    /// The environment of a session under `policy`: its limits before sign-on, and for each
    /// signed-on user the limits of their `[user.NAME]` or `[role.NAME]` table, the user file's
    /// stricter ones on top (`SitePolicy.effectivePolicy(user:role:)`).
    public init(home: String, policy: SitePolicy, logger: Logger = Logger(label: "ward.plugin")) {
        self.init(
            home: home,
            sessionPolicy: policy.effectivePolicy(user: nil, role: nil),
            logger: logger,
            policyForSession: { session in policy.effectivePolicy(user: session.user, role: session.role) }
        )
    }
}
