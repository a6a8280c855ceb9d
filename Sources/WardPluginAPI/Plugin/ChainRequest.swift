/// Something an interceptor asked the session to do, performed after the event has passed.
public enum ChainRequest: Equatable, Sendable {
    case lock(LockReason)
    case signOff(SignOffReason)
    case notice(String)
    /// A notice that the session is about to lock (the idle warning): a terminal may colour it
    /// and ring the bell, as the user's file asks (`[display]`); elsewhere it is a notice.
    case lockWarning(String)
    /// Turn the terminal's focus reports on or off (`ESC[?1004h` / `ESC[?1004l`).
    case focusReporting(Bool)
}
