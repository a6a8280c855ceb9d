import ArgumentParser
import BuiltInPlugins
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
            let policy = try SitePolicy.load(siteOption: global.site, plugins: pluginRegistry)
            printText(PluginListing.describe(registry: pluginRegistry, policy: policy), terminator: "")
        }
    }
}

/// The text `ward plugins` prints.
enum PluginListing {
    static func describe(registry: PluginRegistry, policy: SitePolicy) -> String {
        let width = registry.names.map(\.count).max() ?? 0
        var out = "Built-in plugins:\n"
        for plugin in registry.plugins {
            let padding = String(repeating: " ", count: width - plugin.name.count)
            out += "  \(plugin.name)\(padding)  \(plugin.summary)\n"
        }
        // The built-in name is already in parentheses; a file's path is not.
        let source = policy.file == SitePolicy.builtInFile ? policy.file : "(\(policy.file))"
        out += "\nChain \(source), in order:\n"
        if policy.pluginNames.isEmpty { out += "  (empty)\n" }
        for (i, plugin) in policy.plugins.enumerated() {
            let place = plugin.line > 0 ? "line \(plugin.line)" : "built-in default"
            out += "  \(i + 1). \(plugin.name)  (\(place))\n"
        }
        return out
    }
}
