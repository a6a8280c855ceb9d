/// The site's `[chain] require`: the guards every session's chain must hold.
///
/// ```toml
/// [chain]
/// require = ["audit-log", "idle-timer"]   # the default; [] runs whatever the chain holds
/// ```
///
/// Without a `[[plugin]]` table the default chain runs, and it holds both. But a site that adds
/// one `[[plugin]]` (an `external` review script, say) replaces the whole default chain, and
/// would quietly run with no audit trail and no idle lock. So a chain without a required plugin
/// is a configuration error (exit 78) when a session starts and in `ward config check`; a site
/// that means to go without one says so by leaving it out of `require`.
public struct ChainRequirement: Equatable, Sendable {
    /// What `require` is when the site does not write it.
    public static let defaultRequired = ["audit-log", "idle-timer"]

    /// The site file, for messages.
    public var file: String
    /// The line of `[chain]`, 0 when there is none.
    public var line: Int
    /// The line of the chain itself (`plugin = []` or the first `[[plugin]]`), 0 without one.
    public var chainLine: Int
    /// The plugins every chain must hold.
    public var required: [String]

    /// No `[chain]` table: the default requirement.
    public static func standard(file: String) -> ChainRequirement {
        ChainRequirement(file: file, line: 0, chainLine: 0, required: defaultRequired)
    }

    /// Why each required plugin matters, for the message that names a missing one.
    static func consequence(of name: String) -> String {
        switch name {
        case "audit-log": "nothing a session does would be audited"
        case "idle-timer": "a session left alone would never lock"
        default: "the site requires it"
        }
    }

    /// The first required plugin the chain lacks, as an error naming the chain's line.
    ///
    /// - Parameter chain: The plugin names the chain holds, in order.
    public func check(chain: [String]) throws(ConfigError) {
        var errors: [ConfigError] = []
        for name in required where !chain.contains(name) {
            let others = required.filter { $0 != name }.map { "\"\($0)\"" }.joined(separator: ", ")
            errors.append(
                .conflict(
                    file: file,
                    line: chainLine > 0 ? chainLine : max(line, 1),
                    message: """
                        the plugin chain has no '\(name)', so \(Self.consequence(of: name)). Add a [[plugin]] \
                        with name = "\(name)", or, to run without it on purpose, write [chain] require = [\(others)].
                        """
                )
            )
        }
        if let error = ConfigError.combining(errors) { throw error }
    }

    static func read(
        _ document: ConfigDocument,
        plugins: PluginRegistry,
        errors: inout [ConfigError]
    ) -> ChainRequirement {
        let file = document.file
        var requirement = ChainRequirement.standard(file: file)
        requirement.line = document.line(ofTable: ["chain"])
        guard let table = document.settings(at: ["chain"], errors: &errors) else {
            errors.append(.wrongType(file: file, line: requirement.line, key: "chain", expected: "a table ([chain])"))
            return requirement
        }
        do {
            if let names = try table.strings("require") {
                requirement.required = []
                for name in names {
                    guard plugins.plugin(named: name) != nil else {
                        errors.append(
                            .unknownPlugin(
                                file: file,
                                line: table.line(of: "require"),
                                name: name,
                                known: plugins.names
                            )
                        )
                        continue
                    }
                    if !requirement.required.contains(name) { requirement.required.append(name) }
                }
            }
        } catch { errors += (error as? ConfigError)?.all ?? [] }
        errors += table.unknownKeyErrors
        return requirement
    }

    /// `[chain]` as a site file would write it, for `ward config check`.
    public var summary: String {
        let list = required.map { "\"\($0)\"" }.joined(separator: ", ")
        return "\n[chain]" + (line > 0 ? "    # line \(line)\n" : "    # built-in default\n") + "require = [\(list)]\n"
    }
}
