import ArgumentParser
import AuditLog
import ExternalPlugin
import FocusGuard
import IdleTimer
import SuspendGuard
import WardCore

extension Ward {
    /// `ward plugins`: what a site file may name, and the chain this site runs.
    struct Plugins: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "plugins",
            abstract: "List the built-in plugins and show the site's chain."
        )

        @OptionGroup var global: GlobalOptions

        func run() throws {
            let registry = makePluginRegistry()
            let policy = try SitePolicy.load(siteOption: global.site, knownPlugins: registry.names)
            printText(PluginListing.describe(registry: registry, policy: policy), terminator: "")
        }
    }
}

/// The text `ward plugins` prints.
enum PluginListing {
    static func describe(registry: PluginRegistry, policy: SitePolicy) -> String {
        let width = registry.names.map(\.count).max() ?? 0
        var out = "Built-in plugins:\n"
        for entry in registry.plugins {
            let padding = String(repeating: " ", count: width - entry.name.count)
            let missing = entry.factory == nil ? " (not in this build)" : ""
            out += "  \(entry.name)\(padding)  \(entry.summary)\(missing)\n"
        }
        out += "\nChain (\(policy.file)), in order:\n"
        if policy.pluginNames.isEmpty { out += "  (empty)\n" }
        for (i, plugin) in policy.plugins.enumerated() {
            let place = plugin.line > 0 ? "line \(plugin.line)" : "built-in default"
            out += "  \(i + 1). \(plugin.name)  (\(place))\n"
        }
        return out
    }
}

/// Every plugin this executable has, name to factory: the one place that knows them all.
///
/// Each plugin target adds its line here as it lands, e.g.
/// `registry.register(IdleTimer.name) { settings, environment in try IdleTimer(settings, environment) }`.
func makePluginRegistry() -> PluginRegistry {
    var registry = PluginRegistry()
    registry.register(IdleTimer.name, factory: IdleTimer.make)
    registry.register(AuditLog.name, factory: AuditLog.make(settings:environment:))
    registry.register(SuspendGuard.name, factory: SuspendGuard.make)
    registry.register(FocusGuard.name, factory: FocusGuard.make)
    registry.register(ExternalPlugin.name) { settings, environment in try ExternalPlugin(settings, environment) }
    return registry
}
