// The engine's public API is made of the plugin API's types (Event, Disposition, PluginContext,
// Role, ExitStatus): whoever imports the engine gets them, as swift-nio's `NIO` re-exports
// `NIOCore`. Plugins import `WardPluginAPI` alone.
@_exported import WardPluginAPI
