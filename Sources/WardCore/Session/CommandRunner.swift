/// What runs a line once it has passed the chain: the records shell, for Ward.
///
/// WardCore knows nothing about patients; the shell behind this protocol does.
public protocol CommandRunner: Wipeable {
    /// The prompt for the next line (it names the open chart, if any).
    var prompt: String { get }

    /// Runs one line and says what the session should do next.
    func run(_ line: Line) -> CommandResult

    /// The answer to the question the last command asked (`CommandResult.ask`), or nil when
    /// nobody can answer (a batch): the command goes on, or fails saying how to do without.
    ///
    /// The answer is not a command and does not pass the chain as a `.line`: its keys did, and
    /// what it leads to is announced (`takeSessionEvents`), as the break-glass reason is.
    func answer(_ text: String?) -> CommandResult

    /// Candidates for Tab: the word being completed and the text before it.
    func completions(for word: String, before: String) -> [String]

    /// What a Tab candidate stands for, shown beside it when Tab lists several: the patient's
    /// name beside an MRN. Nil for a candidate that says enough itself (a command's name).
    func completionLabel(for candidate: String) -> String?

    /// The user signed on (or unlocked): load what the session needs, say what the user must
    /// know first (a demo-data banner).
    func signedOn(user: String, role: Role)

    /// What the last command (or answer) did that the chain must hear of, oldest first: one
    /// `.accessed` for each record it touched, so the audit log records what was done rather
    /// than what a line asked for.
    func takeSessionEvents() -> [SessionEvent]

    /// Just before a lock wipes: what to bring back after the unlock (`[session] resume`), as
    /// bytes the session seals and then zeroes; nil when there is nothing to bring back.
    func resumableContext() -> [UInt8]?

    /// After an unlock, once `signedOn` has run: what `resumableContext` gave before the lock.
    /// Bring it back the way a command would (so each access is noted again, and heard by the
    /// chain as after a command), and say what could not be. Do not keep `context`. Nil: a
    /// context was sealed and did not open (the password changed while locked); say that
    /// nothing was brought back.
    func resume(from context: [UInt8]?)

    /// Called once, by the session, with its output barrier: before any text of a command (or an
    /// answer, or a resume) reaches its output, call `barrier`. It sends what the command noted
    /// so far (`takeSessionEvents`) through the chain, as after a command, and returns nil when
    /// the text may be shown, or the chain's refusal (the audit log could not write an access):
    /// show nothing more of this command, and fail it with that message.
    ///
    /// So a record is on disk (with `fsync = "always"`) before any of it is on the screen: the
    /// audit log's fail-closed rule holds for what a command shows as well as for what it runs.
    func placeOutputBarrier(_ barrier: @escaping OutputBarrier)
}

/// The session's check before a command's text is shown (`CommandRunner.placeOutputBarrier`):
/// nil to go on, or why nothing more may be shown.
public typealias OutputBarrier = () -> String?

extension CommandRunner {
    public func answer(_ text: String?) -> CommandResult { .failed }

    public func completionLabel(for candidate: String) -> String? { nil }

    public func takeSessionEvents() -> [SessionEvent] { [] }

    public func resumableContext() -> [UInt8]? { nil }

    public func resume(from context: [UInt8]?) {}

    /// A runner that shows no record (`ward exec`'s program) has no barrier to keep.
    public func placeOutputBarrier(_ barrier: @escaping OutputBarrier) {}
}

/// What the session does after a command.
public enum CommandResult: Equatable, Sendable {
    /// Show the next prompt.
    case succeeded
    /// Show the next prompt; the command failed (batch mode counts these).
    case failed
    /// Show the next prompt; the command failed because what it acts on is not chosen (no chart
    /// is current). A batch stops there with exit status 65 whatever `--on-error` says: the
    /// script's next lines were written for a context it does not have.
    case missingContext
    /// The user asked to lock (`lock`).
    case lock
    /// The user asked to end the session (`logout`, `exit`, `quit`).
    case signOff
    /// The command needs one answer to go on: ask this question in place of the prompt, and
    /// hand the next line to `CommandRunner.answer(_:)`.
    case ask(String)
    /// The command reads text of several lines (a note): hand each next line to
    /// `CommandRunner.answer(_:)`, at a terminal asked for with this prompt, in a batch the
    /// script's next lines as they are (blank and `#` lines too), until the command ends; the
    /// line holding only `.` ends it. Those lines are the command's text, never commands.
    case readsText(String)
}
