import Logging

/// The plugin types a site file may name: how a site file's `[[plugin]]` list becomes an
/// `InterceptorChain`.
///
/// WardCore imports no plugin; the executable, the one place that knows every plugin target,
/// hands over its list of types, as argument-parser lists subcommands:
///
/// ```swift
/// let registry = PluginRegistry(builtInPlugins, defaultChain: defaultPluginChain)
/// let policy = try SitePolicy.load(siteOption: site, plugins: registry)
/// let chain = try registry.makeChain(policy: policy, environment: environment, clock: clock, session: info)
/// ```
///
/// `ward plugins` lists the same types, and site files are checked against their names.
/// Building fails closed: an unknown plugin, an initializer that throws, or a key no initializer
/// read is a `ConfigError` naming the site file's line, and every one of them is reported together.
public struct PluginRegistry: Sendable {
    /// Every plugin a site file may name, in the order `ward plugins` lists them.
    public let plugins: [any Plugin.Type]

    /// The chain when there is no site file, or the site file has no `[[plugin]]`.
    public let defaultChain: [any Plugin.Type]

    public init(_ plugins: [any Plugin.Type], defaultChain: [any Plugin.Type] = []) {
        self.plugins = plugins
        self.defaultChain = defaultChain
    }

    /// The names a site file may use.
    public var names: [String] { plugins.map { $0.name } }

    /// The plugin a site file calls `name`, if there is one.
    public func plugin(named name: String) -> (any Plugin.Type)? { plugins.first { $0.name == name } }

    /// Builds the site's plugins in order without adding them to a chain (nothing starts).
    /// `ward config check` calls this to find every plugin's problems.
    ///
    /// - Throws: `ConfigError`, `.several` when more than one plugin is wrong.
    public func makePlugins(
        _ settings: [PluginSettings],
        environment: PluginEnvironment
    ) throws(ConfigError)
        -> [any Plugin]
    {
        var plugins: [any Plugin] = []
        var errors: [ConfigError] = []
        for table in settings {
            guard let type = plugin(named: table.name) else {
                errors.append(.unknownPlugin(file: table.file, line: table.line, name: table.name, known: names))
                continue
            }
            do {
                let plugin = try type.init(settings: table, environment: environment)
                let unknown = table.unknownKeyErrors
                if unknown.isEmpty { plugins.append(plugin) } else { errors += unknown }
            } catch let error as ConfigError {
                // Keys after the one that failed were never read: not "unknown", just unchecked.
                errors += error.all
            } catch {
                errors.append(
                    .pluginFailed(file: table.file, line: table.line, name: table.name, reason: sentence("\(error)"))
                )
            }
        }
        if let error = ConfigError.combining(SitePolicy.sortedByLine(errors)) { throw error }
        return plugins
    }

    /// The session's chain: the site's plugins built in order and added (each `added` runs).
    ///
    /// `preparing` sees each plugin once built and before it is added: where the executable
    /// hands a plugin what its settings cannot hold (the audit log's database sink).
    public func makeChain(
        policy: SitePolicy,
        environment: PluginEnvironment,
        clock: any WardClock,
        session: SessionInfo,
        logger: Logger = Logger(label: "ward.chain"),
        preparing: (any Plugin) -> Void = { _ in }
    ) throws(ConfigError) -> InterceptorChain {
        let plugins = try makePlugins(policy.plugins, environment: environment)
        plugins.forEach(preparing)
        let chain = InterceptorChain(clock: clock, session: session, logger: logger)
        var errors: [ConfigError] = []
        for (settings, plugin) in zip(policy.plugins, plugins) {
            let failuresBefore = chain.startFailures.count
            chain.append(plugin)
            logger.debug(
                "plugin added",
                metadata: ["plugin.name": "\(plugin.name)", "chain.count": "\(chain.names.count)"]
            )
            for failure in chain.startFailures[failuresBefore...] {
                errors.append(
                    .pluginFailed(
                        file: settings.file,
                        line: settings.line,
                        name: settings.name,
                        reason: sentence(failure.reason)
                    )
                )
            }
        }
        if let error = ConfigError.combining(errors) {
            chain.removeAll(status: error.exitStatus)
            throw error
        }
        return chain
    }
}

/// A reason ending with a period, as error descriptions do.
private func sentence(_ text: String) -> String {
    text.hasSuffix(".") ? text : text + "."
}
