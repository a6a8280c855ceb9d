/// Checks the password a user typed: Ward's own scrypt store (`WardPasswordAuthenticator`) or the
/// system's, through PAM (`PAMAuthenticator`), as the site's `[auth] source` says.
///
/// Only the check: whether the name is in Ward's user list (and with which role), whether the
/// account is locked after failed attempts, and the counting of failures are the credential
/// store's, the same for both (`CredentialStore.signOn`, `unlock`). So a site that moves to PAM
/// keeps its lockout rules, its roles and its "There were 3 unsuccessful attempts".
///
/// An implementation must:
/// - never keep, log or copy the password beyond the call, and zero any copy it makes;
/// - say `.rejected` for a wrong password, and throw only for what is not the user's doing
///   (`.authenticationUnavailable`, `.unanswerablePrompt`) or a refusal that is not about the
///   password (`.accountRefused`);
/// - for a name Ward has no user for (`user == nil`), reject without telling the name to anyone
///   else: it is often a password typed into the name field.
public protocol Authenticator: Sendable {
    /// The source, for messages and `ward config check`.
    var source: AuthSource { get }

    /// Whether the check is quick and local enough to run while the credential store holds its
    /// writers' lock (scrypt: tens of milliseconds). One that may take seconds (PAM: a failure
    /// delay, a directory server) runs outside it, so one slow sign-on does not hold up every
    /// other on the host.
    var checksUnderStoreLock: Bool { get }

    /// Checks `password` for `name`; `user` is Ward's record of the name, nil when there is none.
    /// `tty` is the terminal signed on from, for PAM modules that look at it.
    func check(
        _ password: borrowing Password,
        name: String,
        user: UserRecord?,
        tty: String?
    ) throws(AuthError) -> PasswordVerdict
}

/// What a password check found, and what the checker said on the way.
public struct PasswordVerdict: Sendable, Equatable {
    /// Whether the password is the user's.
    public var isAccepted: Bool
    /// What the checker asked Ward to show the user (PAM's informational and error messages:
    /// "Your password will expire in 3 days"), in order. Text from outside Ward: the front end
    /// sanitizes it when it prints it.
    public var messages: [String]

    public init(isAccepted: Bool, messages: [String] = []) {
        self.isAccepted = isAccepted
        self.messages = messages
    }

    public static let accepted = PasswordVerdict(isAccepted: true)
    public static let rejected = PasswordVerdict(isAccepted: false)
}

extension AuthSource {
    /// The authenticator this source names. `parameters` is the store's scrypt cost, for the
    /// dummy check against a name Ward does not know.
    public func authenticator(parameters: ScryptParameters = .standard) -> any Authenticator {
        switch self {
        case .ward: WardPasswordAuthenticator(parameters: parameters)
        case .pam(let service): PAMAuthenticator(service: service)
        }
    }
}
