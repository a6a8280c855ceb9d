import WardPluginAPI

/// Locks the session when it comes back from Ctrl-Z (SIGTSTP) after more than `grace` away, or
/// before it stops at all when `grace` is zero.
///
/// The terminal's `sceneDidEnterBackground`: a stopped Ward leaves its chart on a terminal the
/// user may walk away from, and `fg` can be typed by whoever sits down next. The session itself
/// clears the screen and scrollback before stopping; this plugin decides whether coming back
/// needs the password again. Away time is the session's boot-clock measure, so a laptop closed
/// while Ward was stopped counts every minute it slept.
///
/// A grace exists because Ctrl-Z then `fg` to glance at another job is common and harmless; a
/// site that disagrees sets `grace = "0s"`, and the lock is requested on `.suspend` itself. The
/// session performs requests before it stops, so the wipe happens while the process can still
/// run, not after an `fg` that may never come.
///
/// Only guards a signed-on, unlocked session: a locked one has nothing left to wipe, and before
/// sign-on there is nothing loaded.
public final class SuspendGuard: Plugin {
    /// The name a site file uses.
    public static let name = "suspend-guard"
    public static let summary = "Obscures the screen on Ctrl-Z; locks when away longer than its grace (15s)."

    /// The grace when the site file says nothing: long enough for a quick look at another job.
    public static let defaultGrace: Duration = .seconds(15)

    /// Away longer than this locks; zero locks before stopping.
    public let grace: Duration

    /// True from sign-on or unlock until a lock or sign-off.
    public private(set) var isGuarding = false

    /// When the last guarded suspend began; nil when there is none to come back from.
    private var suspendedAt: Instant?

    public init(grace: Duration = SuspendGuard.defaultGrace) {
        self.grace = grace
    }

    /// Builds the guard from its `[[plugin]]` table: `grace`, from `"0s"` to `"24h"`, default 15s.
    ///
    /// - Throws: `ConfigError` naming the line of a `grace` that is not a duration or out of range.
    public convenience init(settings: PluginSettings, environment: PluginEnvironment) throws {
        self.init(grace: try settings.duration("grace", in: .zero ... .seconds(24 * 3600)) ?? Self.defaultGrace)
    }

    /// Guards at once when the chain is built for a session that is already signed on.
    public func added(context: PluginContext) {
        isGuarding = context.session.user != nil && !context.session.isLocked
    }

    public func intercept(_ event: Event, context: PluginContext) -> Disposition {
        switch event {
        case .session(.signedOn), .session(.unlocked):
            isGuarding = true
            suspendedAt = nil
        case .session(.locked), .session(.signedOff):
            isGuarding = false
            suspendedAt = nil
        case .lifecycle(.suspend) where isGuarding:
            suspendedAt = context.now
            if grace == .zero { context.lock(reason: .suspend) }
        case .lifecycle(.resume(let away)) where isGuarding:
            // The session's measure, or ours from `.suspend` if longer: a SIGCONT the session
            // did not pair with its own stop arrives as `away: .zero`.
            let ours = suspendedAt.map { context.now - $0 } ?? .zero
            suspendedAt = nil
            if max(away, ours) > grace { context.lock(reason: .suspend) }
        default:
            break
        }
        return .pass  // the session acts on every lifecycle event itself
    }
}
