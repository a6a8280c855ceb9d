import AuditLog
import ExternalPlugin
import FocusGuard
import IdleTimer
import SuspendGuard
import WardCore

/// Every plugin Ward is built with, in the order `ward plugins` lists them: the one place that
/// knows them all, as argument-parser lists subcommands. A site file may name each by its
/// `name`; `ward plugins`, `ward config check`, the session's chain and the site-file fuzz
/// targets read this list. A target of its own, beside the executable, only so that the fuzz
/// package can use the same list instead of a copy.
public let builtInPlugins: [any Plugin.Type] = [
    IdleTimer.self,
    AuditLog.self,
    SuspendGuard.self,
    FocusGuard.self,
    ExternalPlugin.self,
]

/// The chain without a site file, or with one that has no `[[plugin]]`: idle lock, audit trail,
/// suspend guard, each with its own defaults (5m from `idle-timeout`, the log in the home, 15s).
public let defaultPluginChain: [any Plugin.Type] = [IdleTimer.self, AuditLog.self, SuspendGuard.self]

/// The built-in plugins and the default chain, as site files are checked and chains are built.
public let pluginRegistry = PluginRegistry(builtInPlugins, defaultChain: defaultPluginChain)
