/// Why a user could not be added, changed, or signed on. Each says what to do next.
///
/// - Important: No case carries a password or a hash. `wrongCredentials` does not say whether the
///   name or the password was wrong: that would tell a guesser which names exist.
public enum AuthError: WardError, Equatable, Sendable {
    /// No credential store at this path yet: nobody can sign on until a user is added.
    case noStore(path: String)
    /// A line of the credential store does not parse: damaged, or not written by Ward.
    case corruptStore(path: String, line: Int, reason: String)
    /// The store, its lock file or the home is unsafe (others can write it) or unreadable.
    case file(FileSecurityError)
    /// A user name outside `[a-z_][a-z0-9_.-]{0,31}`.
    case invalidUserName(String)
    /// A role other than clinician, clerk or auditor.
    case unknownRole(String)
    /// `passwd` or `remove` named a user the store does not have.
    case noSuchUser(String)
    /// `add` named a user the store already has.
    case userExists(String)
    /// A new password shorter than the minimum (an empty one included).
    case passwordTooShort(minimum: Int)
    /// A password longer than Ward reads.
    case passwordTooLong(maximum: Int)
    /// The two entries of a new password differ.
    case passwordMismatch
    /// No password came: end of input with `--password-stdin`, or Ctrl-D at the prompt.
    case noPassword
    /// A password prompt needs a terminal, and the process has none.
    case noTerminal
    /// Sign-on or unlock refused: the name or the password is wrong.
    case wrongCredentials
    /// The account is locked after too many wrong passwords in a row, until this wall-clock time
    /// (seconds since 1970); the password was not checked.
    case accountLocked(user: String, until: Int64)
    /// `ward user disable` closed the account: no sign-on or unlock until `ward user unlock`.
    case accountDisabled(user: String)
    /// Sign-on gave up after this many failed attempts in a row.
    case tooManyAttempts(Int)
    /// scrypt itself failed (parameters out of range, out of memory).
    case hashingFailed(String)
    /// `ward user passwd` for a user whose password is the system's (added with `--pam`).
    case systemPassword(user: String)
    /// The password was right, but PAM's account stage (`pam_acct_mgmt`) refused the system
    /// account: expired, locked, a password that must be changed first. `reason` is what PAM
    /// said (its messages, else its error text): text from outside Ward, sanitized when shown.
    case accountRefused(user: String, reason: String)
    /// PAM could not check the password at all: the service is missing or broken, a module
    /// failed, or its server is unreachable. Nothing was counted against the user.
    case authenticationUnavailable(service: String, reason: String)
    /// The site's PAM service has no file where libpam looks (`path`): PAM would fall back to
    /// its `other` service, which refuses everyone, and every password would look wrong. A
    /// configuration error, not the user's: nothing is counted against them.
    case pamServiceMissing(service: String, path: String)
    /// PAM asked something Ward's one password prompt cannot answer (a second password, a code
    /// to type back visibly); `prompt` is PAM's question, sanitized when shown.
    case unanswerablePrompt(service: String, prompt: String)
    /// The site's user directory (its database) could not be read or written; `reason` says why
    /// in Ward's words. Nothing was counted against the user.
    case directoryUnavailable(reason: String)
    /// The database user the site file connects as may not change the site's users: sessions'
    /// role reads them and records sign-ons only.
    case directoryReadOnly(databaseUser: String, server: String)

    public var description: String {
        switch self {
        case .noStore(let path):
            "No users yet: \(path) does not exist. Add the first with 'ward user add NAME --role clinician'."
        case .corruptStore(let path, let line, let reason):
            "\(path):\(line): \(reason). The credential store is damaged; restore it from a backup or remove it and add the users again."
        case .file(let error):
            error.description
        case .invalidUserName(let name):
            "'\(name)' is not a valid user name: use 1 to 32 lowercase letters, digits, '_', '-' or '.', starting with a letter or '_'."
        case .unknownRole(let role):
            "'\(role)' is not a role; choose \(Role.choices)."
        case .noSuchUser(let name):
            "No user named '\(name)'. 'ward user list' shows who there is."
        case .userExists(let name):
            "User '\(name)' exists already. To change the password, use 'ward user passwd \(name)'."
        case .passwordTooShort(let minimum):
            "The password is too short; use at least \(minimum) characters."
        case .passwordTooLong(let maximum):
            "The password is too long; use at most \(maximum) bytes."
        case .passwordMismatch:
            "The passwords do not match; nothing was changed."
        case .noPassword:
            "No password was given; nothing was changed."
        case .noTerminal:
            "There is no terminal to ask for the password on; pipe it in with --password-stdin."
        case .wrongCredentials:
            "Wrong user name or password."
        case .accountLocked(let user, let until):
            "The account '\(user)' is locked until \(SignOnSummary.localTime(until)) after too many failed attempts; "
                + "try again then, or have it unlocked with 'ward user unlock \(user)'."
        case .accountDisabled(let user):
            "The account '\(user)' is disabled; have it enabled again with 'ward user unlock \(user)'."
        case .tooManyAttempts(let count):
            "\(count) failed attempts; signing out."
        case .hashingFailed(let reason):
            "Could not hash the password: \(reason)."
        case .systemPassword(let user):
            "'\(user)' signs on with the system's password (PAM), which Ward does not keep; "
                + "change it with passwd(1) as that user, or ask the system's administrator."
        case .accountRefused(let user, let reason):
            "The system refused the account '\(user)': \(reason)"
        case .authenticationUnavailable(let service, let reason):
            "PAM could not check the password (service '\(service)'): \(reason). "
                + "Ask the administrator to check /etc/pam.d/\(service) and the system log."
        case .pamServiceMissing(let service, let path):
            "The site checks passwords with PAM's service '\(service)', but \(path) does not exist, so PAM would "
                + "refuse every password; nothing was counted against you. Ask the administrator to install "
                + "the service (/usr/share/doc/ward/examples/pam.d/ward is one) or to set [auth] source = \"ward\"."
        case .unanswerablePrompt(let service, let prompt):
            "PAM asked \"\(prompt)\", which Ward cannot answer: it hands PAM the one password typed at its "
                + "hidden prompt. The PAM service '\(service)' must ask for that password only (see contrib/pam.d/ward)."
        case .directoryUnavailable(let reason):
            "The site's users could not be read: \(reason)"
        case .directoryReadOnly(let user, let server):
            "The database user \(user) on \(server) may read the site's users but not change them; nothing was "
                + "changed. Run 'ward user' with a site file (--site) whose url connects as the tables' owner, "
                + "as 'ward db migrate' does (USERS in ward(1))."
        }
    }

    /// Usage for a bad name or role, a data error for a password refused, no input when there is
    /// no store or no password, authentication failed when refused; a failure otherwise.
    public var exitStatus: ExitStatus {
        switch self {
        case .noStore, .noPassword, .noTerminal: .noInput
        case .corruptStore, .pamServiceMissing: .configuration
        case .file(let error): error.exitStatus
        case .invalidUserName, .unknownRole: .usage
        case .passwordTooShort, .passwordTooLong, .passwordMismatch: .dataError
        case .wrongCredentials, .tooManyAttempts, .accountLocked, .accountDisabled, .accountRefused:
            .authenticationFailed
        case .authenticationUnavailable, .unanswerablePrompt, .directoryUnavailable:
            ExitStatus(rawValue: 69)  // EX_UNAVAILABLE
        case .directoryReadOnly: .authenticationFailed  // EX_NOPERM
        case .noSuchUser, .userExists, .hashingFailed, .systemPassword: .failure
        }
    }
}
