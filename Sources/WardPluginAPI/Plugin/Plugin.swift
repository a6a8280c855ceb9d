/// A link in the session's chain: sees each event before the shell does, and decides.
///
/// Built-in interceptors live in `Plugins/`, one target each, and import WardCore only. A site
/// file names them in order; the executable builds them through a `PluginRegistry`.
///
/// An interceptor overrides only what it cares about: `added` and `removed` default to nothing,
/// and an `intercept` that does not recognise an event returns `.pass`.
///
/// - Important: `intercept` runs on the loop's thread, between key presses. Keep it cheap; do
///   I/O only for events that matter (a line, a session change), never per key.
public protocol Interceptor: AnyObject {
    /// The name a site file uses for this plugin (`idle-timer`).
    var name: String { get }

    /// Decides about one event. Talk back to the session through `context`.
    func intercept(_ event: Event, context: PluginContext) -> Disposition

    /// Called once when the chain is built, before any event. Schedule a first deadline here.
    func added(context: PluginContext)

    /// Called once when the session ends. Flush and close here.
    func removed(context: PluginContext)
}

extension Interceptor {
    public func added(context: PluginContext) {}
    public func removed(context: PluginContext) {}
}
