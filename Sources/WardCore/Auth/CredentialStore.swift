import Glibc

/// The users who may sign on: a text file in the Ward home, 0600, one user a line, holding each
/// user's role, scrypt hash, last sign-on and failed attempts since.
///
/// ```
/// ward-credentials 1
/// alice	clinician	$scrypt$ln=14,r=8,p=1$<salt>$<digest>	1732265640	/dev/pts/3	0	0	-
/// ```
///
/// Sign-on and unlock go through `signOn` and `unlock`, which hold the writers' lock from reading
/// the user to recording the outcome: wrong passwords in a row are counted per user across every
/// process, and after `lockout.maxFailedAttempts` of them the account is refused until
/// `lockout.duration` has passed, without the password being checked (`LockoutPolicy`). Holding
/// the lock through the scrypt check serialises sign-ons on a host (tens of milliseconds each),
/// and is what stops parallel guessers from all reading "0 failures" at once.
///
/// Who says whether a password is right is the `authenticator`: Ward's scrypt hashes, or the
/// system's password through PAM, as the site's `[auth] source` says. The user list, the roles,
/// the lock and the counting stay here for both.
///
/// Writes are atomic and serialised: under an exclusive `flock` on `credentials.lock`, the whole
/// store is read again, changed, written to a new 0600 file, `fsync`ed and renamed over the old
/// one (and the directory `fsync`ed). So two `ward user` processes, or two sign-ons recording
/// their time, never lose each other's update, and a crash leaves the old store or the new one,
/// never half of one. Readers take no lock: `rename` swaps the whole file at once.
///
/// A store that group or others can read or write is refused, with the reason and the `chmod`
/// that fixes it: the hashes can be attacked offline, and a writable store can be given a user.
///
/// - Important: Passwords reach the store only as `Password` values and leave it only as scrypt
///   hashes; nothing here prints, logs or throws a password, a salt or a digest.
public struct CredentialStore: Sendable {
    /// The store file.
    public let path: String
    /// The file whose `flock` serialises writers (the store itself is replaced on every write,
    /// so it cannot carry the lock).
    public let lockPath: String
    /// The cost new hashes are made with; existing hashes keep their own.
    public let parameters: ScryptParameters
    /// The shortest password `add` and `setPassword` accept.
    public let minimumPasswordLength: Int
    /// When sign-on locks an account (the site's `max-failed-attempts` and `lockout`).
    public var lockout: LockoutPolicy
    /// Who checks the passwords at sign-on and unlock (the site's `[auth] source`); Ward's own
    /// hashes by default. The lockout and the counting stay here, whichever it is.
    public var authenticator: any Authenticator

    /// The longest password Ward reads, in bytes.
    public static let maximumPasswordLength = 1024

    static let header = "ward-credentials 1"

    /// The store in `home` (`home.credentialsPath`). The home should have been checked with
    /// `WardHome.open` or `prepare()`.
    public init(
        home: WardHome,
        parameters: ScryptParameters = .standard,
        minimumPasswordLength: Int = 1,
        lockout: LockoutPolicy = LockoutPolicy(),
        authentication source: AuthSource = .ward
    ) {
        self.init(
            path: home.credentialsPath,
            lockPath: home.credentialsLockPath,
            parameters: parameters,
            minimumPasswordLength: minimumPasswordLength,
            lockout: lockout,
            authenticator: source.authenticator(parameters: parameters)
        )
    }

    public init(
        path: String,
        lockPath: String,
        parameters: ScryptParameters,
        minimumPasswordLength: Int = 1,
        lockout: LockoutPolicy = LockoutPolicy(),
        authenticator: (any Authenticator)? = nil
    ) {
        self.authenticator = authenticator ?? WardPasswordAuthenticator(parameters: parameters)
        self.path = path
        self.lockPath = lockPath
        self.parameters = parameters
        self.minimumPasswordLength = max(1, minimumPasswordLength)
        self.lockout = lockout
    }

    // MARK: Reading

    /// True when the store file exists (it may still be unsafe or damaged).
    public var exists: Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    /// Every user, sorted by name.
    ///
    /// - Throws: `.noStore` when there is no store yet; `.file` when it is unsafe;
    ///   `.corruptStore` naming the line that does not parse.
    public func users() throws(AuthError) -> [UserRecord] {
        guard let users = try load() else { throw .noStore(path: path) }
        return users
    }

    /// The user named `name`, or nil.
    public func user(named name: String) throws(AuthError) -> UserRecord? {
        try users().first { $0.name == name }
    }

    // MARK: Sign-on

    /// Checks `password` for `name` against Ward's own hash, without recording anything and
    /// without regard to a lock or the site's source.
    ///
    /// Returns the user when the password is right, nil when the name is unknown, the user has
    /// no Ward password (`--pam`) or the password is wrong. Those cost a full scrypt too
    /// (against `PasswordHash.dummy`), so timing does not tell which names exist.
    public func verify(name: String, password: borrowing Password) throws(AuthError) -> UserRecord? {
        let user = try UserRecord.isValidName(name) ? self.user(named: name) : nil
        let verdict = try WardPasswordAuthenticator(parameters: parameters)
            .check(password, name: name, user: user, tty: nil)
        return verdict.isAccepted ? user : nil
    }

    /// Signs `name` on: refuses a locked account without checking the password, has the
    /// `authenticator` check it, and records the outcome (`attempt`).
    ///
    /// On success the previous sign-on and the failures since are returned (to show the user)
    /// and replaced by this sign-on; the count toward a lock starts again.
    ///
    /// - Parameters:
    ///   - tty: The terminal signed on from (`ttyname(0)`), kept for the next sign-on's summary
    ///     and given to PAM.
    ///   - time: Wall-clock seconds since 1970; `SignOnSummary.currentTime()` by default.
    ///   - messages: Gets what the authenticator said to show the user (PAM's messages), right
    ///     password or wrong.
    /// - Throws: `.accountLocked` (the password was not checked), `.wrongCredentials` for an
    ///   unknown name or a wrong password alike; from PAM, `.accountRefused`,
    ///   `.authenticationUnavailable`, `.unanswerablePrompt`.
    public func signOn(
        name: String,
        password: borrowing Password,
        tty: String?,
        at time: Int64 = SignOnSummary.currentTime(),
        messages: inout [String]
    ) throws(AuthError) -> SignOnSummary {
        try attempt(name: name, password: password, tty: tty, at: time, messages: &messages) { user in
            let summary = SignOnSummary(
                user: user.name,
                role: user.role,
                previous: user.lastSignOn,
                failedAttempts: user.failedAttempts
            )
            user.lastSignOn = SignOnRecord(time: time, tty: tty)
            user.failedAttempts = 0
            return summary
        }
    }

    /// `signOn`, where nobody reads the authenticator's messages.
    public func signOn(
        name: String,
        password: borrowing Password,
        tty: String?,
        at time: Int64 = SignOnSummary.currentTime()
    ) throws(AuthError) -> SignOnSummary {
        var ignored: [String] = []
        return try signOn(name: name, password: password, tty: tty, at: time, messages: &ignored)
    }

    /// Unlocks a locked session of `name` (the lock screen, or a batch signing on again): the
    /// same rules and the same authenticator as `signOn`, but the last sign-on and the failures
    /// to show stay as they are.
    public func unlock(
        name: String,
        password: borrowing Password,
        tty: String? = nil,
        at time: Int64 = SignOnSummary.currentTime(),
        messages: inout [String]
    ) throws(AuthError) -> UserRecord {
        try attempt(name: name, password: password, tty: tty, at: time, messages: &messages) { user in user }
    }

    /// `unlock`, where nobody reads the authenticator's messages.
    public func unlock(
        name: String,
        password: borrowing Password,
        at time: Int64 = SignOnSummary.currentTime()
    ) throws(AuthError) -> UserRecord {
        var ignored: [String] = []
        return try unlock(name: name, password: password, at: time, messages: &ignored)
    }

    /// One password attempt: a locked account is refused at once; otherwise the authenticator
    /// checks the password, and the outcome is recorded under the writers' lock (`record`).
    ///
    /// A quick check (scrypt) runs under the lock too, from reading the user to recording the
    /// outcome, so parallel guessers cannot all read "0 failures" at once. A slow one (PAM) runs
    /// between a read of the store and the locked write: every failure is still counted, but up
    /// to one guess per process already under way when the lock falls may still be checked.
    ///
    /// An unknown name rewrites the store unchanged, as a known one's failure rewrites it with
    /// one more count: the same check, the same `fsync`s, so the time taken tells nothing. Its
    /// failures are counted too (`UnknownNameCounts`), and after `maxFailedAttempts` of them it
    /// is refused as a locked account is, at once and in the same words: a lockout never tells
    /// which names exist.
    private func attempt<Value>(
        name: String,
        password: borrowing Password,
        tty: String?,
        at time: Int64,
        messages: inout [String],
        success: (inout UserRecord) -> Value
    ) throws(AuthError) -> Value {
        guard exists else { throw .noStore(path: path) }
        let authenticator = self.authenticator
        if authenticator.checksUnderStoreLock {
            // The closure returns the outcome and whether to write; a throw would skip the write.
            let outcome = try updateIfChanged {
                (users: inout [UserRecord]) throws(AuthError) -> (Result<Value, AuthError>, Bool) in
                let i = Self.index(of: name, in: users)
                if let i, users[i].isDisabled { return (.failure(.accountDisabled(user: name)), false) }
                if let i, users[i].isLocked(at: time), let until = users[i].lockedUntil {
                    return (.failure(.accountLocked(user: name, until: until)), false)
                }
                var unknown = try i == nil ? UnknownNameCounts.load(path: unknownNamesPath) : nil
                if let until = unknown?.lockedUntil(name, at: time) {
                    return (.failure(.accountLocked(user: name, until: until)), false)
                }
                let verdict = try authenticator.check(password, name: name, user: i.map { users[$0] }, tty: tty)
                messages += verdict.messages
                if !verdict.isAccepted, unknown != nil {
                    unknown?.failed(name, at: time, lockout: lockout)
                    try unknown?.write(at: time, lockout: lockout)
                }
                return record(verdict, for: name, in: &users, at: time, success: success)
            }
            return try outcome.get()
        }
        let users = try self.users()
        let known = Self.index(of: name, in: users).map { users[$0] }
        if let known, known.isDisabled { throw .accountDisabled(user: name) }
        if let known, known.isLocked(at: time), let until = known.lockedUntil {
            throw .accountLocked(user: name, until: until)
        }
        if known == nil, let until = try UnknownNameCounts.load(path: unknownNamesPath).lockedUntil(name, at: time) {
            throw .accountLocked(user: name, until: until)
        }
        let verdict = try authenticator.check(password, name: name, user: known, tty: tty)
        messages += verdict.messages
        let outcome = try updateIfChanged {
            (users: inout [UserRecord]) throws(AuthError) -> (Result<Value, AuthError>, Bool) in
            if !verdict.isAccepted, Self.index(of: name, in: users) == nil {
                var unknown = try UnknownNameCounts.load(path: unknownNamesPath)
                unknown.failed(name, at: time, lockout: lockout)
                try unknown.write(at: time, lockout: lockout)
            }
            return record(verdict, for: name, in: &users, at: time, success: success)
        }
        return try outcome.get()
    }

    /// Where `name` is in `users`; nil for a name that is not valid or not there.
    private static func index(of name: String, in users: [UserRecord]) -> Int? {
        UserRecord.isValidName(name) ? users.firstIndex { $0.name == name } : nil
    }

    /// Records `verdict` for `name` in a fresh read of the store: a wrong password counts toward
    /// the lock (and locks at `maxFailedAttempts`), a right one ends the count and runs
    /// `success`. An account that is locked now (another process's failures while a slow check
    /// ran) is refused either way, and nothing is counted. Returns the outcome and whether to
    /// write.
    private func record<Value>(
        _ verdict: PasswordVerdict,
        for name: String,
        in users: inout [UserRecord],
        at time: Int64,
        success: (inout UserRecord) -> Value
    ) -> (Result<Value, AuthError>, Bool) {
        guard let i = Self.index(of: name, in: users) else { return (.failure(.wrongCredentials), true) }
        if users[i].isDisabled { return (.failure(.accountDisabled(user: name)), false) }
        if users[i].isLocked(at: time), let until = users[i].lockedUntil {
            return (.failure(.accountLocked(user: name, until: until)), false)
        }
        users[i].lockedUntil = nil  // a lock that has run out
        guard verdict.isAccepted else {
            users[i].failedAttempts += 1
            users[i].consecutiveFailures += 1
            if users[i].consecutiveFailures >= lockout.maxFailedAttempts {
                users[i].lockedUntil = lockout.lockedUntil(from: time)
                users[i].consecutiveFailures = 0
            }
            return (.failure(.wrongCredentials), true)
        }
        users[i].consecutiveFailures = 0
        return (.success(success(&users[i])), true)
    }

    /// Clears `name`'s lock and the count toward the next one (`ward user unlock`), and enables
    /// an account that was disabled. The failures since the last sign-on stay, so the owner
    /// still hears of them.
    public func clearLock(name: String) throws(AuthError) {
        try update { (users: inout [UserRecord]) throws(AuthError) in
            guard let i = users.firstIndex(where: { $0.name == name }) else { throw .noSuchUser(name) }
            users[i].isDisabled = false
            users[i].lockedUntil = nil
            users[i].consecutiveFailures = 0
        }
    }

    /// Disables `name` (`ward user disable`): every sign-on and unlock is refused until
    /// `clearLock` enables it again. Returns false when it was disabled already.
    @discardableResult
    public func disable(name: String) throws(AuthError) -> Bool {
        try update { (users: inout [UserRecord]) throws(AuthError) -> Bool in
            guard let i = users.firstIndex(where: { $0.name == name }) else { throw .noSuchUser(name) }
            defer { users[i].isDisabled = true }
            return !users[i].isDisabled
        }
    }

    /// Records a successful sign-on: returns what to tell the user (the sign-on before this one
    /// and the failed attempts since), then resets the count and remembers this one.
    @discardableResult
    public func recordSuccess(
        name: String,
        tty: String?,
        at time: Int64 = SignOnSummary.currentTime()
    ) throws(AuthError) -> SignOnSummary {
        try update { (users: inout [UserRecord]) throws(AuthError) -> SignOnSummary in
            guard let i = users.firstIndex(where: { $0.name == name }) else { throw .noSuchUser(name) }
            let summary = SignOnSummary(
                user: name,
                role: users[i].role,
                previous: users[i].lastSignOn,
                failedAttempts: users[i].failedAttempts
            )
            users[i].lastSignOn = SignOnRecord(time: time, tty: tty)
            users[i].failedAttempts = 0
            users[i].consecutiveFailures = 0
            return summary
        }
    }

    /// Records a failed attempt for `name` checked outside `signOn`: it counts toward the lock as a
    /// wrong password at `signOn` does. An unknown name is not recorded (there is no one to tell)
    /// and is not an error.
    public func recordFailure(name: String, at time: Int64 = SignOnSummary.currentTime()) throws(AuthError) {
        guard UserRecord.isValidName(name), try user(named: name) != nil else { return }
        let lockout = self.lockout
        try update { (users: inout [UserRecord]) throws(AuthError) in
            guard let i = users.firstIndex(where: { $0.name == name }) else { return }
            if !users[i].isLocked(at: time) { users[i].lockedUntil = nil }
            users[i].failedAttempts += 1
            users[i].consecutiveFailures += 1
            if users[i].consecutiveFailures >= lockout.maxFailedAttempts {
                users[i].lockedUntil = lockout.lockedUntil(from: time)
                users[i].consecutiveFailures = 0
            }
        }
    }

    // MARK: Managing users (`ward user`)

    /// Adds a user; creates the store (0600) when there is none.
    public func add(name: String, role: Role, password: borrowing Password) throws(AuthError) {
        guard UserRecord.isValidName(name) else { throw .invalidUserName(name) }
        try checkStrength(password)
        let hash = try PasswordHash(password: password, parameters: parameters)
        try update { (users: inout [UserRecord]) throws(AuthError) in
            if users.contains(where: { $0.name == name }) { throw .userExists(name) }
            users.append(UserRecord(name: name, role: role, passwordHash: hash))
        }
    }

    /// Adds a user whose password is the system's (`ward user add --pam`): no Ward password is
    /// kept; PAM checks the system's where the site's `[auth] source` is `pam`.
    public func addSystemUser(name: String, role: Role) throws(AuthError) {
        guard UserRecord.isValidName(name) else { throw .invalidUserName(name) }
        try update { (users: inout [UserRecord]) throws(AuthError) in
            if users.contains(where: { $0.name == name }) { throw .userExists(name) }
            users.append(UserRecord(name: name, role: role, passwordHash: nil))
        }
    }

    /// Replaces a user's password (new salt, current parameters) and clears their failure count
    /// and any lock: whoever may write the store has chosen the new password.
    public func setPassword(name: String, password: borrowing Password) throws(AuthError) {
        guard UserRecord.isValidName(name), let user = try user(named: name) else { throw .noSuchUser(name) }
        if user.usesSystemPassword { throw .systemPassword(user: name) }
        try checkStrength(password)
        let hash = try PasswordHash(password: password, parameters: parameters)
        try update { (users: inout [UserRecord]) throws(AuthError) in
            guard let i = users.firstIndex(where: { $0.name == name }) else { throw .noSuchUser(name) }
            users[i].passwordHash = hash
            users[i].failedAttempts = 0
            users[i].consecutiveFailures = 0
            users[i].lockedUntil = nil
        }
    }

    /// Changes a user's role.
    public func setRole(name: String, role: Role) throws(AuthError) {
        try update { (users: inout [UserRecord]) throws(AuthError) in
            guard let i = users.firstIndex(where: { $0.name == name }) else { throw .noSuchUser(name) }
            users[i].role = role
        }
    }

    /// Removes a user. Their open sessions are not ended, but they cannot sign on or unlock again.
    public func remove(name: String) throws(AuthError) {
        try update { (users: inout [UserRecord]) throws(AuthError) in
            guard let i = users.firstIndex(where: { $0.name == name }) else { throw .noSuchUser(name) }
            users.remove(at: i)
        }
    }

    private func checkStrength(_ password: borrowing Password) throws(AuthError) {
        try Self.checkStrength(password, minimum: minimumPasswordLength)
    }

    /// Refuses a new password shorter than `minimum` or longer than Ward reads: the rule of every
    /// user directory (`UserDirectory`).
    public static func checkStrength(_ password: borrowing Password, minimum: Int) throws(AuthError) {
        if password.count < minimum { throw .passwordTooShort(minimum: minimum) }
        if password.count > maximumPasswordLength { throw .passwordTooLong(maximum: maximumPasswordLength) }
    }

    // MARK: File

    /// Where wrong sign-ons under unknown names are counted (`UnknownNameCounts`).
    var unknownNamesPath: String { path + ".unknown" }

    /// Runs `change` on a fresh read of the store under the writers' lock, then writes the
    /// result atomically. A store that does not exist yet starts empty.
    func update<Result>(_ change: (inout [UserRecord]) throws(AuthError) -> Result) throws(AuthError) -> Result {
        try updateIfChanged { (users: inout [UserRecord]) throws(AuthError) in (try change(&users), true) }
    }

    /// `update`, where `change` also says whether there is anything to write.
    func updateIfChanged<Result>(
        _ change: (inout [UserRecord]) throws(AuthError) -> (Result, Bool)
    ) throws(AuthError)
        -> Result
    {
        let lock: Int32
        do throws(FileSecurityError) {
            lock = try FileSecurity.openFile(atPath: lockPath, flags: O_RDWR, create: true, rule: .ownerOnly)
        } catch {
            throw .file(error)
        }
        defer { close(lock) }  // closing releases the flock
        while flock(lock, LOCK_EX) != 0 {
            if errno != EINTR { throw .file(.system(path: lockPath, operation: "lock", errno: errno)) }
        }
        var users = try load() ?? []
        let (result, changed) = try change(&users)
        if changed { try write(users) }
        return result
    }

    /// The users in the file, or nil when there is no file.
    private func load() throws(AuthError) -> [UserRecord]? {
        let bytes: [UInt8]
        do throws(FileSecurityError) {
            let fd = try FileSecurity.openFile(atPath: path, flags: O_RDONLY, rule: .ownerOnly)
            defer { close(fd) }
            bytes = try FileSecurity.readAll(descriptor: fd, path: path)
        } catch .notFound {
            return nil
        } catch {
            throw .file(error)
        }
        return try CredentialFile.parse(String(decoding: bytes, as: UTF8.self), path: path)
    }

    /// Writes `users` to `path.new` (0600), `fsync`s it, renames it over the store and `fsync`s
    /// the directory, so the rename itself survives a crash.
    private func write(_ users: [UserRecord]) throws(AuthError) {
        let temporary = path + ".new"
        let text = CredentialFile.render(users.sorted { $0.name < $1.name })
        do throws(FileSecurityError) {
            // We hold the lock: a leftover .new is from a writer that died; it is replaced.
            try FileSecurity.replaceFile(atPath: path, with: Array(text.utf8), temporary: temporary, sync: true)
            syncDirectory(of: path)
        } catch {
            throw .file(error)
        }
    }

    /// `fsync` on the directory that holds `file`; best effort (some file systems refuse it).
    private func syncDirectory(of file: String) {
        let directory = file.lastIndex(of: "/").map { String(file[..<$0]) } ?? "."
        let fd = Glibc.open(directory.isEmpty ? "/" : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        close(fd)
    }
}
