// The user preference loader: any bytes as `~/.config/ward/config.toml`, then put over the
// built-in site policy as `SitePolicy.load` does.
// Entry points: `UserPreferences.parse(_:file:plugins:)` and `SitePolicy.applying(_:)`.
import BuiltInPlugins
import WardCore

/// The built-in plugins and the default chain, the executable's own list.
let plugins = pluginRegistry

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
