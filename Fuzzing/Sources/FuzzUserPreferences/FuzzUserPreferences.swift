// The user preference loader: any bytes as `~/.config/ward/config.toml`, then put over the
// built-in site policy as `SitePolicy.load` does.
// Entry points: `UserPreferences.parse(_:file:plugins:)` and `SitePolicy.applying(_:)`.
import AuditLog
import ExternalPlugin
import FocusGuard
import IdleTimer
import SuspendGuard
import WardCore

/// The built-in plugins and the default chain, as the executable lists them (`Sources/ward/BuiltInPlugins.swift`).
let plugins = PluginRegistry(
    [IdleTimer.self, AuditLog.self, SuspendGuard.self, FocusGuard.self, ExternalPlugin.self],
    defaultChain: [IdleTimer.self, AuditLog.self, SuspendGuard.self]
)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzUserPreferences(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: start, count: count), as: UTF8.self)
    do {
        let preferences = try UserPreferences.parse(text, file: "config.toml", plugins: plugins)
        _ = try SitePolicy.builtIn(plugins: plugins).applying(preferences)
    } catch {
        _ = error.description
    }
    return 0
}
