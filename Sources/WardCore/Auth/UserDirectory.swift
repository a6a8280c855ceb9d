/// The site's users, as sign-on and `ward user` see them: who may sign on, in which role, the
/// lockout after wrong passwords (NIST 800-53 AC-7), and what sign-on tells a user about their
/// account.
///
/// Two implementations, chosen by the executable from the site's `[records]`: the home's file
/// (`CredentialStore`), one host's users, and the site's database (WardRecords'
/// `PostgresUserDirectory`), one directory for every host that shares the records. WardCore
/// knows only this protocol, so the session and the lock screen work the same over either.
///
/// An implementation must:
/// - count every wrong password toward the lock atomically across every process that shares it,
///   so that parallel guessers cannot each read "0 failures";
/// - refuse a locked or disabled account without checking the password, with `.accountLocked` or
///   `.accountDisabled`, and an unknown name with `.wrongCredentials` after a check that costs as
///   much as a real one (and lock it as a known name is locked);
/// - never print, log or throw a password, a salt or a digest.
public protocol UserDirectory: Sendable {
    /// Who checks the passwords at sign-on and unlock (the site's `[auth] source`).
    var authenticator: any Authenticator { get }

    /// Every user, sorted by name. A directory may leave out the hashes
    /// (`UserRecord.passwordHashWithheld`).
    func users() throws(AuthError) -> [UserRecord]

    /// The user named `name`, or nil; with or without the hash, as `users()`.
    func user(named name: String) throws(AuthError) -> UserRecord?

    /// Signs `name` on: refuses a locked account without checking the password, has the
    /// `authenticator` check it, and records the outcome. On success returns the previous sign-on
    /// and the failures since, and replaces them with this sign-on.
    func signOn(
        name: String,
        password: borrowing Password,
        tty: String?,
        at time: Int64,
        messages: inout [String]
    ) throws(AuthError) -> SignOnSummary

    /// Unlocks a locked session of `name`: the same rules as `signOn`, but the last sign-on and
    /// the failures to show stay as they are.
    func unlock(
        name: String,
        password: borrowing Password,
        tty: String?,
        at time: Int64,
        messages: inout [String]
    ) throws(AuthError) -> UserRecord

    /// Adds a user with a Ward password.
    func add(name: String, role: Role, password: borrowing Password) throws(AuthError)

    /// Adds a user whose password is the system's, checked by PAM.
    func addSystemUser(name: String, role: Role) throws(AuthError)

    /// Replaces a user's password and clears their failure count and any lock.
    func setPassword(name: String, password: borrowing Password) throws(AuthError)

    /// Removes a user.
    func remove(name: String) throws(AuthError)

    /// Clears `name`'s lock and the count toward the next one, and enables a disabled account.
    func clearLock(name: String) throws(AuthError)

    /// Disables `name`; returns false when it was disabled already.
    @discardableResult
    func disable(name: String) throws(AuthError) -> Bool
}

extension UserDirectory {
    /// `signOn` now.
    public func signOn(
        name: String,
        password: borrowing Password,
        tty: String?,
        messages: inout [String]
    ) throws(AuthError) -> SignOnSummary {
        try signOn(name: name, password: password, tty: tty, at: SignOnSummary.currentTime(), messages: &messages)
    }

    /// `unlock` now.
    public func unlock(
        name: String,
        password: borrowing Password,
        tty: String?,
        messages: inout [String]
    ) throws(AuthError) -> UserRecord {
        try unlock(name: name, password: password, tty: tty, at: SignOnSummary.currentTime(), messages: &messages)
    }
}

extension CredentialStore: UserDirectory {}
