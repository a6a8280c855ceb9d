import WardPluginAPI

extension IdleTimer {
    /// Builds the timer from its `[[plugin]]` table.
    ///
    /// The table's own `idle-timeout`, `warn-before` and `max-session` win; a key it leaves out
    /// comes from the session policy of whoever signs on (`[user.NAME]`, `[role.NAME]`,
    /// `[session]`, the user file), asked again at each sign-on.
    ///
    /// - Throws: `ConfigError` naming the line: a value that is not a duration, out of range, or a
    ///   `warn-before` not shorter than `idle-timeout`.
    public convenience init(settings: PluginSettings, environment: PluginEnvironment) throws {
        let overrides = try Overrides(settings, checkedAgainst: environment.sessionPolicy)
        self.init(
            limitsFor: { session in overrides.limits(over: environment.sessionPolicy(for: session)) },
            initial: overrides.limits(over: environment.sessionPolicy)
        )
    }

    /// The keys a `[[plugin]]` table for the idle timer set; nil where it said nothing.
    struct Overrides: Sendable {
        var timeout: Duration?
        var warnBefore: Duration?
        /// `.some(nil)` for `max-session = "off"`.
        var maxSession: Duration??

        init(_ settings: PluginSettings, checkedAgainst policy: SessionPolicy) throws {
            timeout = try settings.duration(
                SessionKey.idleTimeout.rawValue,
                in: SessionKey.idleTimeout.durationRange
            )
            warnBefore = try settings.duration(
                SessionKey.warnBefore.rawValue,
                in: SessionKey.warnBefore.durationRange
            )
            let maxKey = SessionKey.maxSession.rawValue
            if case .string("off")? = settings.allValues.first(where: { $0.key == maxKey })?.value {
                _ = try settings.string(maxKey)
                maxSession = .some(nil)
            } else if let d = try settings.duration(maxKey, in: SessionKey.maxSession.durationRange) {
                maxSession = .some(d)
            }
            // Only a conflict this table makes is ours to report; `[session]`'s own is reported there.
            guard timeout != nil || warnBefore != nil else { return }
            let limits = self.limits(over: policy, repairing: false)
            if limits.warnBefore > .zero, limits.warnBefore >= limits.timeout {
                let key = warnBefore != nil ? SessionKey.warnBefore.rawValue : SessionKey.idleTimeout.rawValue
                throw ConfigError.conflict(
                    file: settings.file,
                    line: settings.line(of: key),
                    message: "'warn-before' (\(DurationText.format(limits.warnBefore))) must be shorter than"
                        + " 'idle-timeout' (\(DurationText.format(limits.timeout))); shorten it,"
                        + " or set it to \"0s\" for no warning."
                )
            }
        }

        /// These keys over `policy`. A combination that leaves the warning no earlier than the lock
        /// (a user's stricter timeout under the plugin's warning) warns at half the timeout, as
        /// `SitePolicy.effectivePolicy` does.
        func limits(over policy: SessionPolicy, repairing: Bool = true) -> Limits {
            var limits = Limits(
                timeout: timeout ?? policy.idleTimeout,
                warnBefore: warnBefore ?? policy.warnBefore,
                maxSession: maxSession ?? policy.maxSession
            )
            if repairing, limits.warnBefore >= limits.timeout { limits.warnBefore = limits.timeout / 2 }
            return limits
        }
    }
}
