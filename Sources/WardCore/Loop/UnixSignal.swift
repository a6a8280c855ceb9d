import Glibc

/// A signal, as a value that prints as `SIGTSTP`.
public struct UnixSignal: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int32

    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// Ctrl-C.
    public static let sigint = UnixSignal(rawValue: SIGINT)
    /// Ctrl-\; handled like Ctrl-C so it never dumps core with patient data in it.
    public static let sigquit = UnixSignal(rawValue: SIGQUIT)
    /// Ctrl-Z.
    public static let sigtstp = UnixSignal(rawValue: SIGTSTP)
    /// `fg` / `bg` after a stop.
    public static let sigcont = UnixSignal(rawValue: SIGCONT)
    /// The terminal closed.
    public static let sighup = UnixSignal(rawValue: SIGHUP)
    /// Asked to end.
    public static let sigterm = UnixSignal(rawValue: SIGTERM)
    /// The window changed size.
    public static let sigwinch = UnixSignal(rawValue: SIGWINCH)
    /// `ward lock` asks this session to lock (`SessionRegistry.requestLock`).
    public static let sigusr1 = UnixSignal(rawValue: SIGUSR1)

    public var description: String {
        switch rawValue {
        case SIGINT: "SIGINT"
        case SIGQUIT: "SIGQUIT"
        case SIGTSTP: "SIGTSTP"
        case SIGCONT: "SIGCONT"
        case SIGHUP: "SIGHUP"
        case SIGTERM: "SIGTERM"
        case SIGWINCH: "SIGWINCH"
        case SIGUSR1: "SIGUSR1"
        default: "signal \(rawValue)"
        }
    }
}
