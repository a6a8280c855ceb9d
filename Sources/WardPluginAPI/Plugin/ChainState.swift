/// What a `PluginContext` reads from and writes to the chain that made it: the clock, who is
/// signed on, and the requests, start failures and denial its plugin raised.
///
/// The chain lives in the engine and the context in the plugin API, which imports nothing of
/// the engine; this protocol is the one seam between them. `package`: a plugin never sees it.
package protocol ChainState: AnyObject {
    /// The session's clock.
    var clock: any WardClock { get }
    /// Who is signed on now, and whether the session is locked.
    var session: SessionInfo { get }
    /// What plugins asked for during the current event, in the order they asked.
    var requests: [ChainRequest] { get set }
    /// Plugins that could not start, with why, in order.
    var startFailures: [(plugin: String, reason: String)] { get set }
    /// The message of a plugin that refused the current line; nil when none did.
    var denial: String? { get set }
}
