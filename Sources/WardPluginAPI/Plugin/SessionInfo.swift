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

    public init(
        id: String,
        user: String? = nil,
        role: Role? = nil,
        isLocked: Bool = false
    ) {
        self.id = id
        self.user = user
        self.role = role
        self.isLocked = isLocked
    }
}
