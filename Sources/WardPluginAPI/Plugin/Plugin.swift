/// A link in the session's chain: sees each event before the shell does, and decides.
///
/// Built-in plugins live in `Plugins/`, one target each, and import WardPluginAPI only. A site
/// file names them in order; the executable lists their types (as argument-parser lists
/// subcommands), and a `PluginRegistry` builds the chain from that list:
///
/// ```swift
/// final class IdleTimer: Plugin {
///     static let name = "idle-timer"
///     static let summary = "Locks the session after idle-timeout without a key."
///     init(settings: PluginSettings, environment: PluginEnvironment) throws { … }
///     func intercept(_ event: Event, context: PluginContext) -> Disposition { … }
/// }
/// ```
///
/// A plugin overrides only what it cares about: `added` and `removed(status:context:)` default to nothing,
/// and an `intercept` that does not recognise an event returns `.pass`.
///
/// - Important: `intercept` runs on the loop's thread, between key presses. Keep it cheap; do
///   I/O only for events that matter (a line, a session change), never per key.
///
/// The type itself (its `name`, its initializer) is shared: the registry that lists the types is
/// a constant any thread may read, hence `SendableMetatype`. An instance lives on the loop.
public protocol Plugin: AnyObject, SendableMetatype {
    /// The name a site file uses for this plugin (`idle-timer`).
    static var name: String { get }

    /// One line for `ward plugins`: what the plugin does, as a sentence.
    static var summary: String { get }

    /// Whether a site's chain may hold this plugin more than once. False unless a plugin says
    /// otherwise: two idle timers would only fight, while each external plugin runs a program
    /// of its own.
    static var isRepeatable: Bool { get }

    /// Builds the plugin from its `[[plugin]]` table. Reads its keys through the typed accessors
    /// (they throw `ConfigError` naming the line); keys it never reads are reported as unknown.
    /// Starts nothing: `ward config check` builds plugins too, so files and processes are opened
    /// in `added(context:)`.
    init(settings: PluginSettings, environment: PluginEnvironment) throws

    /// This plugin's name in messages and in the chain: `Self.name` unless a plugin says
    /// otherwise (tests that chain several of one type).
    var name: String { get }

    /// Decides about one event. Talk back to the session through `context`.
    func intercept(_ event: Event, context: PluginContext) -> Disposition

    /// Called once when the chain is built, before any event. Schedule a first deadline here.
    func added(context: PluginContext)

    /// Called once when the session ends, the plugin's last call: flush and close here.
    /// `status` is what the process exits with (0, 77 for a refused sign-on, 143 after SIGTERM),
    /// as sudo's plugins hear `close(exit_status)`: a plugin that keeps a record of the session
    /// can say how it ended without asking anyone.
    func removed(status: ExitStatus, context: PluginContext)
}

extension Plugin {
    public static var isRepeatable: Bool { false }
    public var name: String { Self.name }
    public func added(context: PluginContext) {}
    public func removed(status: ExitStatus, context: PluginContext) {}
}
