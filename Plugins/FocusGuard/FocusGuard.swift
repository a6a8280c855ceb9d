import WardPluginAPI

/// Locks the session when the terminal window stays out of focus longer than `after`.
///
/// The terminal's `sceneWillResignActive`: a clinician who switches to another window and is
/// called away leaves the chart in view even while the idle timer is still counting. With focus
/// reporting on (`ESC[?1004h`) the terminal says when it loses and regains focus; this plugin
/// starts a deadline on `.focus(.lost)` and drops it on `.focus(.gained)`.
///
/// It consumes every focus event, so nothing after it in the chain (and never readline, which
/// would insert `ESC[I` as text) sees them. Off unless the site enables it: not every terminal
/// reports focus, and a tiling window manager moves focus often.
///
/// Only guards a signed-on, unlocked session; reports are turned off again at sign-off (the
/// session also turns them off at the password prompt and on exit).
public final class FocusGuard: Plugin {
    /// The name a site file uses.
    public static let name = "focus-guard"
    public static let summary = "Locks when the terminal window stays out of focus longer than its grace."

    /// Out of focus this long when the site file says nothing.
    public static let defaultAfter: Duration = .seconds(60)

    /// Out of focus longer than this locks; zero locks as soon as focus is lost.
    public let after: Duration

    /// True from sign-on or unlock until a lock or sign-off.
    public private(set) var isGuarding = false

    public init(after: Duration = FocusGuard.defaultAfter) {
        self.after = after
    }

    /// Builds the guard from its `[[plugin]]` table: `after`, from `"0s"` to `"24h"`, default 60s.
    ///
    /// - Throws: `ConfigError` naming the line of an `after` that is not a duration or out of range.
    public convenience init(settings: PluginSettings, environment: PluginEnvironment) throws {
        self.init(after: try settings.duration("after", in: .zero ... .seconds(24 * 3600)) ?? Self.defaultAfter)
    }

    /// Guards at once when the chain is built for a session that is already signed on.
    public func added(context: PluginContext) {
        if context.session.user != nil, !context.session.isLocked { start(context: context) }
    }

    public func removed(status: ExitStatus, context: PluginContext) {
        stop(context: context, reportsOff: true)
    }

    public func intercept(_ event: Event, context: PluginContext) -> Disposition {
        switch event {
        case .focus(.lost):
            // A second `lost` without a `gained` keeps the first deadline: it must not move later.
            if isGuarding, context.deadline == nil {
                if after == .zero { lockNow(context: context) } else { context.schedule(after: after) }
            }
            return .consume
        case .focus(.gained):
            context.cancelDeadline()
            return .consume
        case .timer:
            if isGuarding { lockNow(context: context) }
            return .consume
        case .session(.signedOn), .session(.unlocked):
            start(context: context)
        case .session(.locked):
            stop(context: context, reportsOff: false)
        case .session(.signedOff):
            stop(context: context, reportsOff: true)
        default:
            break
        }
        return .pass
    }

    private func start(context: PluginContext) {
        isGuarding = true
        context.cancelDeadline()
        context.setFocusReporting(true)
    }

    /// Locked, reports stay on (the session pauses them at the password prompt and resumes them
    /// after); signed off, they go off.
    private func stop(context: PluginContext, reportsOff: Bool) {
        let wasGuarding = isGuarding
        isGuarding = false
        context.cancelDeadline()
        if reportsOff, wasGuarding { context.setFocusReporting(false) }
    }

    private func lockNow(context: PluginContext) {
        stop(context: context, reportsOff: false)
        context.lock(reason: .focus)
    }
}
