/// Who the session belongs to right now, as interceptors may know it.
///
/// The session driver owns it and updates it before announcing a change, so the audit log's `signedOn` record can
/// name the user that just signed on.
public struct SessionInfo: Equatable, Sendable {
    /// A random identifier for this process's session, for the audit log.
    public var id: String
    /// The signed-on user; nil before sign-on and after sign-off.
    public var user: String?
    /// The user's role (`clinician`, `clerk`, `auditor`); nil when nobody is signed on.
    public var role: Role?
    /// True while the session is locked.
    public var isLocked: Bool
    /// What the shell's next command refers to (the open chart's MRN), as the shell itself
    /// reports it after each command; nil when nothing is open. The audit log names it in the
    /// record of a `show` or a `note`, so the record says what the shell showed, not what a line
    /// asked to open.
    public var currentRecord: String?

    public init(
        id: String,
        user: String? = nil,
        role: Role? = nil,
        isLocked: Bool = false,
        currentRecord: String? = nil
    ) {
        self.id = id
        self.user = user
        self.role = role
        self.isLocked = isLocked
        self.currentRecord = currentRecord
    }
}
