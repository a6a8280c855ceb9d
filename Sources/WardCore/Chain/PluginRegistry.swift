import Logging

/// Plugin names to factories: how a site file's `[[plugin]]` list becomes an `InterceptorChain`.
///
/// WardCore imports no plugin, so the registry starts with names and summaries only (for
/// `ward plugins` and for checking a site file); the executable, the one place that knows every
/// plugin target, registers each factory:
///
/// ```swift
/// var registry = PluginRegistry()
/// registry.register(IdleTimer.name) { settings, environment in try IdleTimer(settings, environment) }
/// let chain = try registry.makeChain(policy: policy, environment: environment, clock: clock, session: info)
/// ```
///
/// Building fails closed: an unknown plugin, a factory that throws, or a key no factory read is
/// a `ConfigError` naming the site file's line, and every one of them is reported together.
public struct PluginRegistry {
    /// Builds one interceptor from its `[[plugin]]` table. Reads its keys through the typed
    /// accessors (they throw `ConfigError` with the line); keys it never reads are reported as
    /// unknown. Starts nothing: files and processes are opened in `added(context:)`.
    public typealias Factory = (PluginSettings, PluginEnvironment) throws -> any Interceptor

    /// One plugin a site file may name.
    public struct Entry {
        public let name: String
        /// One line for `ward plugins`.
        public let summary: String
        /// Nil until the executable registers the plugin's target.
        public let factory: Factory?
    }

    /// Ward's built-in plugins, in the order `ward plugins` lists them.
    public static let builtIn: [(name: String, summary: String)] = [
        ("idle-timer", "Locks the session after idle-timeout without a key, with a warning warn-before it."),
        ("audit-log", "Appends a hash-chained JSON Lines record of every command and session change."),
        ("suspend-guard", "Obscures the screen on Ctrl-Z; locks when away longer than its grace (15s)."),
        ("focus-guard", "Locks when the terminal window stays out of focus longer than its grace."),
        ("external", "Runs a site program that may allow, deny or rewrite lines (JSON Lines)."),
    ]

    /// The built-in plugins' names.
    public static var builtInNames: [String] { builtIn.map(\.name) }

    private var entries: [Entry]

    /// A registry holding the built-in plugins' names and summaries, with no factory yet.
    public init() {
        entries = Self.builtIn.map { Entry(name: $0.name, summary: $0.summary, factory: nil) }
    }

    /// Every plugin known, built-in ones first, in registration order.
    public var plugins: [Entry] { entries }

    /// The names a site file may use.
    public var names: [String] { entries.map(\.name) }

    public func entry(named name: String) -> Entry? { entries.first { $0.name == name } }

    /// Adds or replaces `name`'s factory; a new name needs a summary.
    public mutating func register(_ name: String, summary: String? = nil, factory: @escaping Factory) {
        if let i = entries.firstIndex(where: { $0.name == name }) {
            entries[i] = Entry(name: name, summary: summary ?? entries[i].summary, factory: factory)
        } else {
            entries.append(Entry(name: name, summary: summary ?? "", factory: factory))
        }
    }

    /// Builds the site's interceptors in order without adding them to a chain (nothing starts).
    /// `ward config check` calls this to find every plugin's problems.
    ///
    /// - Throws: `ConfigError`, `.several` when more than one plugin is wrong.
    public func makeInterceptors(
        _ settings: [PluginSettings],
        environment: PluginEnvironment
    ) throws(ConfigError)
        -> [any Interceptor]
    {
        var interceptors: [any Interceptor] = []
        var errors: [ConfigError] = []
        for plugin in settings {
            guard let entry = entry(named: plugin.name) else {
                errors.append(.unknownPlugin(file: plugin.file, line: plugin.line, name: plugin.name, known: names))
                continue
            }
            guard let factory = entry.factory else {
                errors.append(
                    .pluginFailed(
                        file: plugin.file,
                        line: plugin.line,
                        name: plugin.name,
                        reason: "this build of Ward does not include it."
                    )
                )
                continue
            }
            do {
                let interceptor = try factory(plugin, environment)
                let unknown = plugin.unknownKeyErrors
                if unknown.isEmpty { interceptors.append(interceptor) } else { errors += unknown }
            } catch let error as ConfigError {
                // Keys after the one that failed were never read: not "unknown", just unchecked.
                errors += error.all
            } catch {
                errors.append(
                    .pluginFailed(file: plugin.file, line: plugin.line, name: plugin.name, reason: sentence("\(error)"))
                )
            }
        }
        if let error = ConfigError.combining(SitePolicy.sortedByLine(errors)) { throw error }
        return interceptors
    }

    /// The session's chain: the site's plugins built in order and added (each `added` runs).
    public func makeChain(
        policy: SitePolicy,
        environment: PluginEnvironment,
        clock: any WardClock,
        session: SessionInfo,
        logger: Logger = Logger(label: "ward.chain")
    ) throws(ConfigError) -> InterceptorChain {
        let interceptors = try makeInterceptors(policy.plugins, environment: environment)
        let chain = InterceptorChain(clock: clock, session: session, logger: logger)
        var errors: [ConfigError] = []
        for (settings, interceptor) in zip(policy.plugins, interceptors) {
            let failuresBefore = chain.startFailures.count
            chain.append(interceptor)
            logger.debug(
                "plugin added",
                metadata: ["plugin.name": "\(interceptor.name)", "chain.count": "\(chain.names.count)"]
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
            chain.removeAll()
            throw error
        }
        return chain
    }
}

/// A reason ending with a period, as error descriptions do.
private func sentence(_ text: String) -> String {
    text.hasSuffix(".") ? text : text + "."
}
