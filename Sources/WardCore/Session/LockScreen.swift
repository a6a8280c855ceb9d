/// What the lock screen says, the same in the records shell and in `ward exec`.
enum LockScreen {
    /// `Ward is locked: no activity. Signed on as alice.` and a newline. The name passes the
    /// sanitizer: it is what somebody typed at the sign-on prompt.
    /// `requestedBy` names who asked with `ward lock`: `locked by bob (ward lock)`.
    static func headline(user: String, reason: LockReason, requestedBy: String? = nil) -> String {
        let why =
            if reason == .request { "locked by \(Sanitizer.line(requestedBy ?? "a signal")) (ward lock)" } else {
                explanation(of: reason)
            }
        return "Ward is locked: \(why). Signed on as \(Sanitizer.line(user)).\n"
    }

    /// The last line, once the screen says what is locked.
    static let howToUnlock = "Type the password to unlock, or press Ctrl-D to sign off.\n"

    private static func explanation(of reason: LockReason) -> String {
        switch reason {
        case .idle: "no activity"
        case .suspend: "away after Ctrl-Z"
        case .focus: "the window was out of focus"
        case .user: "locked by the user"
        case .maxSession: "the session time limit was reached"
        case .failure: "a safeguard failed"
        case .request: "locked by request (ward lock)"
        }
    }
}
