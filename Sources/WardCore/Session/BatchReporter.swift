/// What a batch tells the one who runs it: each command as it starts and ends, and the
/// session's own news (a lock, why it stopped).
///
/// The records shell's output sits behind it (`BatchOutput` in WardShell), so the batch can
/// give each command's rows as one JSON object, or its text, with failures on standard error
/// as `FILE:LINE: message`.
public protocol BatchReporter: AnyObject {
    /// `line` passed the chain, or is about to.
    func commandStarted(_ line: Line)

    /// `line` is done; anything it printed belongs to it.
    func commandFinished(_ line: Line, status: BatchStatus)

    /// A message about the session, not about one command (for standard error).
    func notice(_ text: String)
}

/// How one command of a batch ended.
public enum BatchStatus: Equatable, Sendable {
    case succeeded
    /// The command ran and failed; it reported why through the shell's output.
    case failed
    /// An interceptor refused the line, with this message; the shell never saw it.
    case denied(String)

    /// `ok`, `failed` or `denied`, as JSON output spells it.
    public var name: String {
        switch self {
        case .succeeded: "ok"
        case .failed: "failed"
        case .denied: "denied"
        }
    }
}
