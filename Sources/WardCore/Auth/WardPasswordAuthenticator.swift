/// Checks a password against the scrypt hash in Ward's own credential store: `[auth] source =
/// "ward"`, the default.
///
/// A name Ward does not know, or a user whose password is the system's (added with `--pam`, on a
/// site that has gone back to Ward's store), costs a full scrypt too, against
/// `PasswordHash.dummy`, so the time taken does not tell which names exist.
public struct WardPasswordAuthenticator: Authenticator {
    /// The cost of the dummy check: the store's, so that it takes as long as a real one.
    public let parameters: ScryptParameters

    public init(parameters: ScryptParameters = .standard) {
        self.parameters = parameters
    }

    public var source: AuthSource { .ward }

    /// scrypt takes tens of milliseconds: checked under the store's lock, so that parallel
    /// guessers cannot all read "no failures yet" at once.
    public var checksUnderStoreLock: Bool { true }

    public func check(
        _ password: borrowing Password,
        name: String,
        user: UserRecord?,
        tty _: String?  // scrypt has no use for the terminal; PAM passes it on as PAM_TTY
    ) throws(AuthError) -> PasswordVerdict {
        guard let hash = user?.passwordHash else {
            _ = try PasswordHash.dummy(parameters: parameters).matches(password)
            return .rejected
        }
        return try hash.matches(password) ? .accepted : .rejected
    }
}
