import ArgumentParser
import AuditLog
import BuiltInPlugins
import Logging
import WardCore

extension Ward {
    /// `ward config`: the site policy.
    struct Config: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "config",
            abstract: "Check the site policy.",
            subcommands: [Check.self]
        )
    }
}

extension Ward.Config {
    /// `ward config check [FILE]`: every problem in the site file and the user file at once, or
    /// the effective policy. For administrators before they install a site file, so it reports
    /// every error (exit 78) rather than stopping at the first as the shell's start does.
    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "check",
            abstract: "Report every error in a site file, or print the effective policy.",
            discussion: """
                Reads FILE (default: --site, $WARD_SITE, /etc/ward/site.toml, else built-in defaults) \
                and the user file ($XDG_CONFIG_HOME/ward/config.toml), builds every plugin without \
                starting it, and prints each problem as FILE:LINE: message, all of them in one run. \
                A chain without a plugin [chain] require names (the audit log and the idle timer, \
                unless the site says otherwise) is a problem too, and so is a PAM service ([auth]) \
                this machine lacks; a [user.NAME] table naming no user of the home is a warning. \
                Exit 78 when the policy is not valid.

                Then the deployment, for the account running the check (run it as the account that \
                runs the sessions): the home and the audit log must be that account's alone, the \
                log's directory writable by it and by nobody else; a site file it may change is a \
                warning. Exit 78 when a session would be refused for any of it, else 0. Records on \
                PostgreSQL: the server must answer, hold every migration ('ward db migrate'), and \
                give the site file's user exactly what sessions need (a right too many is a warning).

                A program [exec] runs outside its sandbox (sandbox = "off") is a warning, and so is \
                a key that no longer does anything; a read, write or may-run path that reaches the \
                home, the site file, the user file or the audit log, or a may-run program not \
                installed, is an error.

                --format json prints only the problems, one object a line (file, line, key, \
                severity, message, fix), with the same exit status.
                """
        )

        @OptionGroup var global: GlobalOptions

        @Argument(help: ArgumentHelp("The site file to check.", valueName: "file"), completion: .file())
        var file: String?

        @Option(
            name: .customLong("for-user"),
            help: ArgumentHelp("Show the limits this user's sessions get (with their role's).", valueName: "name")
        )
        var forUser: String?

        @Option(name: .customLong("for-role"), help: ArgumentHelp("Show the limits for this role.", valueName: "role"))
        var forRole: Role?

        @Option(
            help: ArgumentHelp(
                "The problems as text, or one JSON object a line (file, line, key, severity, message, fix).",
                discussion: "With json nothing else is printed: for monitoring, which reads the exit status too.",
                valueName: "text|json"
            )
        )
        var format: Format = .text

        enum Format: String, ExpressibleByArgument, CaseIterable { case text, json }

        func run() throws {
            let environment = ConfigEnvironment.current
            let location =
                file.map { SiteFileLocation.named($0) }
                ?? SiteFileLocation.locate(option: global.site, environment: environment)
            let home = WardHome.resolvePath(option: global.home)
            let report = PolicyCheck.run(
                location: location,
                environment: environment,
                home: home,
                registry: pluginRegistry
            )
            var problems = report.problems
            // The deployment only for a valid policy: a table in error may name another audit log.
            if let policy = report.policy, !problems.contains(where: { $0.severity == .error }) {
                let findings = deploymentFindings(policy, home: home)
                problems += findings.compactMap(\.problem)
                if format == .text {
                    printText(
                        PolicyCheck.describe(policy, user: forUser, role: forRole, home: home),
                        terminator: ""
                    )
                    printText("\n# deployment, for the account running this check")
                    for finding in findings where finding.severity == .fine { printText("# \(finding.text)") }
                }
            }
            switch format {
            case .text:
                for problem in problems { StandardError.report(problem.text) }
            case .json:
                for problem in problems { print(Sanitizer.json(problem.json)) }
            }
            if problems.contains(where: { $0.severity == .error }) { throw ConfigCheckFailed() }
        }

        /// What the deployment check finds for the account running it; problems end the check
        /// with 78, as the session would end.
        private func deploymentFindings(_ policy: SitePolicy, home: String) -> [DeploymentCheck.Finding] {
            DeploymentCheck(
                home: home,
                auditLog: PolicyCheck.auditLogPath(policy, home: home),
                siteFile: policy.file == SitePolicy.builtInFile ? nil : policy.file
            ).run() + DatabaseCheck(records: policy.records, siteFile: policy.file).run()
        }
    }
}

/// The checking and printing behind `ward config check`, apart from argument parsing.
enum PolicyCheck {
    /// What a check found: the policy as far as the files allow (nil when the site file cannot
    /// be read or is not TOML), and every problem, in file and line order.
    struct Report {
        var policy: SitePolicy?
        var problems: [ConfigProblem]
    }

    /// Reads the site file and the user file and builds every plugin (nothing starts), going
    /// on past a table in error so that one run reports everything; then what the policy asks
    /// of this machine and this home (the PAM service, the users `[user.NAME]` tables name).
    static func run(
        location: SiteFileLocation,
        environment: [String: String],
        home: String,
        registry: PluginRegistry
    ) -> Report {
        var (policy, errors) = SitePolicy.loadSiteReportingAll(location, plugins: registry)
        var preferences: UserPreferences?
        do {
            preferences = try SitePolicy.loadUserFile(environment: environment, plugins: registry)
        } catch {
            errors += error.all
        }
        var warnings: [ConfigProblem] = []
        if var checked = policy {
            if let preferences {
                do { checked = try checked.applying(preferences) } catch { errors += error.all }
            }
            let pluginEnvironment = PluginEnvironment(
                home: home,
                policy: checked,
                logger: Logger(label: "ward.config")
            )
            do {
                _ = try registry.makePlugins(checked.plugins, environment: pluginEnvironment)
            } catch {
                errors += error.all
            }
            do { try checked.requireGuards() } catch { errors += error.all }
            errors += checked.exec.pathProblems(
                home: home,
                userFile: SitePolicy.userFilePath(environment: environment),
                auditLog: auditLogPath(checked, home: home)
            )
            errors += pamServiceErrors(checked, environment: environment)
            warnings += userTableWarnings(checked, home: home)
            warnings += checked.exec.warnings.map {
                ConfigProblem(file: $0.file, line: $0.line, key: nil, severity: .warning, message: $0.message, fix: nil)
            }
            policy = checked
        }
        return Report(
            policy: policy,
            problems: ConfigProblem.sorted(errors.flatMap(\.all).map(ConfigProblem.init) + warnings)
        )
    }

    /// `[auth] source = "pam"` naming a service this machine does not have: every sign-on
    /// would be refused, so it is an error here as it is at sign-on.
    static func pamServiceErrors(_ policy: SitePolicy, environment: [String: String]) -> [ConfigError] {
        guard case .pam(let service) = policy.auth,
            PAMAuthenticator.serviceFile(service, environment: environment) == nil
        else { return [] }
        let path = PAMAuthenticator.serviceDirectories(environment: environment)[0] + "/" + service
        return [
            .conflict(
                file: policy.file,
                line: policy.authLine,
                message: "[auth] checks passwords with PAM's service '\(service)', but \(path) does not exist, "
                    + "so every sign-on would be refused. Install it (/usr/share/doc/ward/examples/pam.d/ward is "
                    + "an example), or name a service that exists."
            )
        ]
    }

    /// A `[user.NAME]` table for a name the home has no user for applies to nobody: a typo, a
    /// capital (Ward's names are lower case), or a user since removed. Warned, not refused: a
    /// site may name a user before adding them.
    static func userTableWarnings(_ policy: SitePolicy, home: String) -> [ConfigProblem] {
        guard !policy.users.isEmpty else { return [] }
        let names: [String]
        do {
            names = try CredentialStore(home: WardHome(path: home)).users().map(\.name)
        } catch .noStore {
            names = []
        } catch {
            return [
                ConfigProblem(
                    file: policy.file,
                    line: policy.users.values.map(\.line).min() ?? 0,
                    key: nil,
                    severity: .warning,
                    message: "the [user.NAME] tables could not be checked against the users of \(home): "
                        + "\(error.description)",
                    fix: nil
                )
            ]
        }
        return policy.users.sorted(by: { $0.value.line < $1.value.line }).compactMap { name, table in
            guard !names.contains(name) else { return nil }
            let near =
                names.first { $0 == name.lowercased() }
                ?? names.filter { editDistance($0, name.lowercased()) <= 2 }.min {
                    editDistance($0, name.lowercased()) < editDistance($1, name.lowercased())
                }
            let message =
                names.isEmpty
                ? "[user.\(name)] names no Ward user: \(home) has no users yet, so it applies to nobody."
                : "[user.\(name)] names no Ward user of \(home), so it applies to nobody."
            let fix =
                near.map { "Did you mean [user.\($0)]? Names are matched exactly, and Ward's are lower case." }
                ?? "Correct the name ('ward user list' shows the users), or remove the table."
            return ConfigProblem(
                file: policy.file,
                line: table.line,
                key: "user.\(name)",
                severity: .warning,
                message: message,
                fix: fix
            )
        }
    }

    /// The audit log a session would write: the `audit-log` plugin's path, nil without one.
    static func auditLogPath(_ policy: SitePolicy, home: String) -> String? {
        guard let settings = policy.plugins.first(where: { $0.name == AuditLog.name }) else { return nil }
        let log = try? AuditLog(settings: settings, environment: PluginEnvironment(home: home, policy: policy))
        return log?.path ?? WardHome(path: home).auditLogPath
    }

    /// The effective policy as a site file would write it, with where it came from. For a user
    /// named without a role, the role the home's user list gives them: a session applies their
    /// role's table, so the values shown must too.
    static func describe(_ policy: SitePolicy, user: String?, role: Role?, home: String) -> String {
        var out = "# site file: \(policy.file)\n"
        out += "# user file: \(policy.preferences?.file ?? "(none)")\n"
        var role = role
        if let user, role == nil {
            if let known = try? CredentialStore(home: WardHome(path: home)).user(named: user) {
                role = known.role
                out += "# for user \(user), role \(known.role.rawValue) (from the users of \(home))\n"
            } else {
                out += "# for user \(user), role (any): \(home) has no such user; no role's table applies\n"
            }
        } else if user != nil || role != nil {
            out += "# for user \(user ?? "(any)"), role \(role?.rawValue ?? "(any)")\n"
        }
        let effective = policy.effectivePolicy(user: user, role: role)
        out += "\n[session]\n"
        for key in SessionKey.allCases {
            out += "\(key.rawValue) = \(effective[key])\n"
        }
        if let banner = policy.access.banner {
            out +=
                "# banner: \(banner.utf8.count) bytes, shown before every sign-on (line \(policy.access.bannerLine))\n"
        }
        if let group = policy.access.adminGroup { out += "admin-group = \"\(group)\"\n" }
        for (name, override) in policy.users.sorted(by: { $0.key < $1.key }) {
            out += describe(override, table: "user.\(name)")
        }
        for (role, override) in policy.roles.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            out += describe(override, table: "role.\(role)")
        }
        if let display = policy.preferences?.display {
            out += "\n[display]\ncolor = \"\(display.color.rawValue)\"\nbell = \(display.bell)\n"
        }
        out += policy.exec.summary
        out += policy.auth.summary
        out += policy.ssh.summary
        out += policy.records.summary
        out += policy.chainRequirement.summary
        for plugin in policy.plugins {
            out += "\n[[plugin]]\nname = \"\(plugin.name)\""
            out += plugin.line > 0 ? "    # line \(plugin.line)\n" : "    # built-in default\n"
            for (key, value, _) in plugin.allValues where key != "name" {
                out += "\(key) = \(value)\n"
            }
        }
        return out
    }

    private static func describe(_ override: SessionOverride, table: String) -> String {
        var out = "\n[\(table)]    # line \(override.line)\n"
        for key in SessionKey.allCases {
            if let value = override.values[key] { out += "\(key.rawValue) = \(value)\n" }
        }
        return out
    }
}

extension Role: ExpressibleByArgument {}
