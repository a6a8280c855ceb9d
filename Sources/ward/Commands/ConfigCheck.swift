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
                starting it, and prints each problem as FILE:LINE: message. A chain without a plugin \
                [chain] require names (the audit log and the idle timer, unless the site says \
                otherwise) is a problem too. Exit 78 when the policy is not valid.

                Then the deployment, for the account running the check (run it as the account that \
                runs the sessions): the home and the audit log must be that account's alone, the \
                log's directory writable by it and by nobody else; a site file it may change is a \
                warning. Exit 78 when a session would be refused for any of it, else 0.

                A program [exec] runs outside its sandbox (sandbox = "off") is a warning, and so is \
                a key that no longer does anything; a read, write or may-run path that reaches the \
                home, the site file or the user file, or a may-run program not installed, is an error.
                """
        )

        @OptionGroup var global: GlobalOptions

        @Argument(help: ArgumentHelp("The site file to check.", valueName: "file"))
        var file: String?

        @Option(name: .customLong("for-user"), help: ArgumentHelp("Show the limits for this user.", valueName: "name"))
        var forUser: String?

        @Option(name: .customLong("for-role"), help: ArgumentHelp("Show the limits for this role.", valueName: "role"))
        var forRole: Role?

        func run() throws {
            let environment = ConfigEnvironment.current
            let location =
                file.map { SiteFileLocation.named($0) }
                ?? SiteFileLocation.locate(option: global.site, environment: environment)
            let result = PolicyCheck.run(
                location: location,
                environment: environment,
                home: WardHome.resolvePath(option: global.home),
                registry: pluginRegistry
            )
            switch result {
            case .failure(let error):
                throw error
            case .success(let policy):
                printText(PolicyCheck.describe(policy, user: forUser, role: forRole), terminator: "")
                for warning in policy.exec.warnings { StandardError.report("warning: \(warning)") }
                try checkDeployment(policy)
            }
        }

        /// The deployment's findings as comments after the policy; warnings and problems on
        /// standard error, problems ending the check with 78, as the session would end.
        private func checkDeployment(_ policy: SitePolicy) throws {
            let home = WardHome.resolvePath(option: global.home)
            let findings = DeploymentCheck(
                home: home,
                auditLog: PolicyCheck.auditLogPath(policy, home: home),
                siteFile: policy.file == SitePolicy.builtInFile ? nil : policy.file
            ).run()
            printText("\n# deployment, for the account running this check")
            for finding in findings where finding.severity == .fine { printText("# \(finding.text)") }
            for finding in findings where finding.severity == .warning {
                StandardError.report("warning: \(finding.text)")
            }
            let problems = findings.filter { $0.severity == .problem }.map(\.text)
            if !problems.isEmpty { throw DeploymentProblems(problems: problems) }
        }
    }
}

/// The checking and printing behind `ward config check`, apart from argument parsing.
enum PolicyCheck {
    /// Reads the site file and the user file and builds every plugin (nothing starts);
    /// every problem found, or the policy.
    static func run(
        location: SiteFileLocation,
        environment: [String: String],
        home: String,
        registry: PluginRegistry
    ) -> Result<SitePolicy, ConfigError> {
        var errors: [ConfigError] = []
        var policy: SitePolicy?
        do {
            policy = try SitePolicy.loadSite(location, plugins: registry)
        } catch {
            errors += error.all
        }
        var preferences: UserPreferences?
        do {
            preferences = try SitePolicy.loadUserFile(environment: environment, plugins: registry)
        } catch {
            errors += error.all
        }
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
            policy = checked
        }
        if let error = ConfigError.combining(errors) { return .failure(error) }
        return .success(policy!)
    }

    /// The audit log a session would write: the `audit-log` plugin's path, nil without one.
    static func auditLogPath(_ policy: SitePolicy, home: String) -> String? {
        guard let settings = policy.plugins.first(where: { $0.name == AuditLog.name }) else { return nil }
        let log = try? AuditLog(settings: settings, environment: PluginEnvironment(home: home, policy: policy))
        return log?.path ?? WardHome(path: home).auditLogPath
    }

    /// The effective policy as a site file would write it, with where it came from.
    static func describe(_ policy: SitePolicy, user: String?, role: Role?) -> String {
        var out = "# site file: \(policy.file)\n"
        out += "# user file: \(policy.preferences?.file ?? "(none)")\n"
        if user != nil || role != nil {
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
