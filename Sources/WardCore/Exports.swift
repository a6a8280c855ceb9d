// The engine's public API is made of the plugin API's types (Event, Disposition, PluginContext,
// Role, ExitStatus) and the support's (Sanitizer, FileSecurity, WardHome, BootClock): whoever
// imports the engine gets them, as swift-nio's `NIO` re-exports `NIOCore`. Plugins import
// `WardPluginAPI`, and `WardSupport` when they need it.
@_exported import WardPluginAPI
@_exported import WardSupport
