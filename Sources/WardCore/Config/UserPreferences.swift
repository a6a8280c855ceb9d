/// The user's own file (`$XDG_CONFIG_HOME/ward/config.toml`): stricter limits and cosmetics.
///
/// A user may shorten a timeout, lower `max-failed-attempts`, turn on `max-session`, pick
/// colours and a bell; never loosen a limit, set `lockout` (a shorter lock is a weaker one) or
/// remove a plugin the site enables. Such a file is refused with a message naming both files
/// (`SitePolicy.applying(_:)`), rather than silently clamped, so the user learns the setting
/// has no effect.
///
/// ```toml
/// [session]
/// idle-timeout = "2m"
///
/// [display]
/// color = "never"     # auto | always | never
/// bell = true         # ring the bell with the warning before an idle lock
/// pager = false       # print tall output whole instead of a page at a time
/// ```
public struct UserPreferences: Sendable {
    /// The user file's path.
    public let file: String
    /// The user file's `[session]` limits.
    public let session: SessionOverride
    /// Cosmetic options.
    public let display: Display
    /// `[plugins] disable = [...]`, each name with its line. Accepted only for plugins the site
    /// does not enable, where it changes nothing.
    public let disabledPlugins: [(name: String, line: Int)]

    /// `[display]`: how Ward looks, nothing that touches security.
    public struct Display: Equatable, Sendable {
        public enum Color: String, Sendable, CaseIterable { case auto, always, never }
        /// Colour in Ward's own output (`auto`: when the terminal is a tty and `NO_COLOR` is unset).
        public var color: Color = .auto
        /// Ring the terminal bell with the idle warning.
        public var bell = false
        /// Page output taller than the window inside Ward (`Pager`); false prints it whole.
        public var pager = true
        public init() {}
    }

    /// Parses a user file's text. Throws `ConfigError` (`.several` when more than one problem).
    public static func parse(
        _ text: String,
        file: String,
        plugins: PluginRegistry
    )
        throws(ConfigError) -> UserPreferences
    {
        let document = try ConfigDocument(text: text, file: file)
        var errors: [ConfigError] = []
        var session = SessionOverride(file: file, line: 0)
        var display = Display()
        var disabled: [(name: String, line: Int)] = []

        for key in document.keys(in: []) {
            guard let table = document.settings(at: [key], errors: &errors) else {
                errors.append(
                    .wrongType(file: file, line: document.line(ofKey: key, in: []), key: key, expected: "a table")
                )
                continue
            }
            switch key {
            case "session":
                session = SessionOverride.read(table, errors: &errors)
                if session.values.removeValue(forKey: .lockout) != nil {
                    // Shorter is weaker here, and the lock guards an account against whoever runs
                    // Ward, the guesser included: only the site file may set it.
                    errors.append(
                        .conflict(
                            file: file,
                            line: session.lines[.lockout] ?? table.line,
                            message: "'lockout' is the site's to set: an account's lock holds against whoever "
                                + "runs Ward, so a user file cannot change it. Remove it from this file."
                        )
                    )
                }
            case "display":
                do {
                    if let color = try table.choice("color", from: Display.Color.allCases.map(\.rawValue)) {
                        display.color = Display.Color(rawValue: color) ?? .auto
                    }
                } catch {
                    errors.append(error as? ConfigError ?? .conflict(file: file, line: table.line, message: "\(error)"))
                }
                do {
                    if let bell = try table.bool("bell") { display.bell = bell }
                } catch {
                    errors.append(error as? ConfigError ?? .conflict(file: file, line: table.line, message: "\(error)"))
                }
                do {
                    if let pager = try table.bool("pager") { display.pager = pager }
                } catch {
                    errors.append(error as? ConfigError ?? .conflict(file: file, line: table.line, message: "\(error)"))
                }
                errors += table.unknownKeyErrors
            case "plugins":
                do {
                    for name in try table.strings("disable") ?? [] {
                        if plugins.plugin(named: name) != nil {
                            disabled.append((name, table.line(of: "disable")))
                        } else {
                            errors.append(
                                .unknownPlugin(
                                    file: file,
                                    line: table.line(of: "disable"),
                                    name: name,
                                    known: plugins.names
                                )
                            )
                        }
                    }
                } catch {
                    errors.append(error as? ConfigError ?? .conflict(file: file, line: table.line, message: "\(error)"))
                }
                errors += table.unknownKeyErrors
            default:
                let suggestion = ["session", "display", "plugins"].first { editDistance($0, key) <= 2 }
                errors.append(
                    .unknownKey(
                        file: file,
                        line: document.line(ofKey: key, in: []),
                        key: key,
                        table: "the user file",
                        suggestion: suggestion
                    )
                )
            }
        }
        if let error = ConfigError.combining(SitePolicy.sortedByLine(errors)) { throw error }
        return UserPreferences(file: file, session: session, display: display, disabledPlugins: disabled)
    }
}

extension SitePolicy {
    /// This policy with the user's file on top, or every way the file would weaken the site.
    ///
    /// A user-file limit is refused when it is looser than the loosest value the site file
    /// gives that key anywhere (`[session]`, any `[user.NAME]` or `[role.NAME]`): that is the
    /// only comparison possible before sign-on. `effectivePolicy(user:role:)` then takes the
    /// stricter of the two for the user who signs on, so the user file can never loosen it.
    public func applying(_ preferences: UserPreferences) throws(ConfigError) -> SitePolicy {
        var errors: [ConfigError] = []
        for key in SessionKey.allCases {
            guard let value = preferences.session.values[key] else { continue }
            let ceiling = ceiling(of: key)
            if key == .resume, value > ceiling.value {
                let site = ceiling.line > 0 ? "\(file):\(ceiling.line)" : SitePolicy.builtInFile
                errors.append(
                    .conflict(
                        file: preferences.file,
                        line: preferences.session.lines[key] ?? preferences.session.line,
                        message: "'resume' is true, but \(site) turns it off; a user file may only turn it off."
                    )
                )
            } else if value > ceiling.value {
                errors.append(
                    .lengthens(
                        file: preferences.file,
                        line: preferences.session.lines[key] ?? preferences.session.line,
                        key: key.rawValue,
                        value: value.description,
                        siteFile: ceiling.line > 0 ? file : SitePolicy.builtInFile,
                        siteLine: ceiling.line,
                        siteValue: ceiling.value.description
                    )
                )
            }
        }
        let mine = preferences.session.applied(to: sitePolicy)
        if let conflict = preferences.session.warningConflict(in: mine),
            preferences.session.values[.idleTimeout] != nil || preferences.session.values[.warnBefore] != nil
        {
            errors.append(conflict)
        }
        for (name, line) in preferences.disabledPlugins {
            if let siteLine = self.line(ofPlugin: name) {
                errors.append(
                    .dropsPlugin(
                        file: preferences.file,
                        line: line,
                        name: name,
                        siteFile: siteLine > 0 ? file : SitePolicy.builtInFile,
                        siteLine: siteLine
                    )
                )
            }
        }
        if let error = ConfigError.combining(errors) { throw error }
        var result = self
        result.preferences = preferences
        return result
    }
}
