// The site file loader: any bytes as `site.toml`.
// Entry point: `SitePolicy.parse(_:file:plugins:)`, what `SitePolicy.loadSite` calls once the file is read.
// It must return a policy or throw `ConfigError` (whose description is rendered too), never trap.
import BuiltInPlugins
import WardCore

/// The built-in plugins and the default chain, the executable's own list.
let plugins = pluginRegistry

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSiteFile(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: start, count: count), as: UTF8.self)
    do {
        let policy = try SitePolicy.parse(text, file: "site.toml", plugins: plugins)
        _ = String(describing: policy)
    } catch {
        _ = error.description
    }
    return 0
}
