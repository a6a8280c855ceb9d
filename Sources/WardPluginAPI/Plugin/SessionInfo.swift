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
    /// Where the session signs on from (a terminal, an SSH login, a script); the driver sets it
    /// from its front end before anyone is asked for a password. Nil outside a session.
    public var signOnSource: SignOnSource?
    /// Who asked for the current lock with `ward lock` (a Ward user, or a Unix user of the
    /// site's admin group); nil unless the session is locked by such a request.
    public var lockRequestedBy: String?

    public init(
        id: String,
        user: String? = nil,
        role: Role? = nil,
        isLocked: Bool = false,
        signOnSource: SignOnSource? = nil
    ) {
        self.id = id
        self.user = user
        self.role = role
        self.isLocked = isLocked
        self.signOnSource = signOnSource
    }
}
