import PostgresNIO
import Synchronization
import WardCore

/// The site's users in its PostgreSQL database (`[records] backend = "postgresql"`): one
/// directory for every host that shares the records, in place of each home's credential file.
///
/// The same rules as `CredentialStore`, the same messages and exit statuses: a locked or disabled
/// account is refused without its password being checked; `lockout.maxFailedAttempts` wrong
/// passwords in a row lock it until `lockout.duration` has passed; an unknown name is checked
/// against a dummy hash and locks alike. The counting runs in the database, under the name's
/// advisory lock (`PostgresSiteUsers`), so guessers on every host share one budget: with
/// Ward's own hashes the lock is held from reading the account to recording the outcome, as
/// the file store holds its `flock`; a PAM check, which may take seconds, runs between two
/// locked steps, and every failure is still counted.
///
/// Sign-on reads a hash only through `ward_sign_on_start`, one named account at a time; the
/// `ward user` commands need a database user that owns `ward_user` (the one `ward db migrate`
/// runs as), and refuse one that may only read it (`AuthError.directoryReadOnly`).
public final class PostgresUserDirectory: UserDirectory {
    public let authenticator: any Authenticator
    /// When sign-on locks an account (the site's `max-failed-attempts` and `lockout`).
    public let lockout: LockoutPolicy
    /// The cost new hashes are made with.
    public let parameters: ScryptParameters
    /// The shortest password `add` and `setPassword` accept.
    public let minimumPasswordLength: Int
    let link: PostgresLink
    /// Whether the records store uses this directory's connection (`PostgresRecordStore(sharing:)`).
    private let lent = Atomic(false)
    /// When the directory connected; nil once an attempt has taken that connection or left it.
    private let connectedAt = Mutex<ContinuousClock.Instant?>(.now)
    /// How long the connection made at start is trusted to be alive without a word from the
    /// server: one left idle at a prompt longer may have been dropped on the way (a firewall's
    /// idle timeout) without either end knowing, and a sign-on would wait out the statement
    /// timeout on it. An attempt later than this makes a new one.
    let idleTrust: Duration

    /// Connects to the site's database and checks that its schema is current, so that a session
    /// stops before its sign-on prompt when the server cannot be reached (69) or has not been
    /// migrated (78).
    ///
    /// A session holds one connection to the server for its records and its passwords, so what
    /// `ward db migrate` counts as sessions and what an administrator sees stays one a session:
    /// the records shell's store takes this one over (`lend()`), and the first password is
    /// checked on it without a connection of its own to wait for. An attempt that does not sign
    /// the user on closes it (a lock screen holds none), as does every attempt where no store
    /// shares it (a program under `ward exec`); the next attempt, or the store, opens it again.
    public init(
        settings: PostgresSettings,
        lockout: LockoutPolicy = LockoutPolicy(),
        authentication source: AuthSource = .ward,
        parameters: ScryptParameters = .standard,
        minimumPasswordLength: Int = 1,
        idleTrust: Duration = .seconds(60)
    ) throws {
        self.idleTrust = idleTrust
        self.lockout = lockout
        self.parameters = parameters
        self.minimumPasswordLength = max(1, minimumPasswordLength)
        authenticator = source.authenticator(parameters: parameters)
        link = PostgresLink(settings: settings)
        try link.connect()
        try PostgresSchema.requireCurrent(link)
        // A server process compiles a PL/pgSQL function, and reads the catalog for its tables,
        // at the function's first call: about 2.5 ms the first sign-on would wait for. Asked
        // for the empty name, which no user can have, `ward_sign_on_start` only reads, and this
        // call is not waited for.
        _ = try? link.send(["SELECT FROM ward_sign_on_start('', 0)"])
    }

    /// Closes the connection without waiting.
    public func close() { link.close() }

    /// The connection, for the records store to use as its own from now on: an attempt that
    /// signs the user on then leaves it open. Its schema was checked when this directory
    /// connected.
    func lend() -> PostgresLink {
        lent.store(true, ordering: .relaxed)
        return link
    }

    // MARK: Reading

    public func users() throws(AuthError) -> [UserRecord] {
        try reading { try link.query("SELECT \(unescaped: Self.columns) FROM ward_user ORDER BY name") }
    }

    public func user(named name: String) throws(AuthError) -> UserRecord? {
        try reading { try link.query("SELECT \(unescaped: Self.columns) FROM ward_user WHERE name = \(name)") }.first
    }

    /// Every column but the hash, which the session role may not read.
    private static let columns =
        "name, role, ward_password, last_sign_on, last_tty, failed_attempts::bigint, "
        + "consecutive_failures::bigint, locked_until, disabled"

    private func reading(_ query: () throws -> [PostgresRow]) throws(AuthError) -> [UserRecord] {
        let rows = try directory(query)
        var users: [UserRecord] = []
        for row in rows {
            let decoded = try directory {
                try PostgresLink.decoded {
                    try row.decode((String, String, Bool, Int64?, String?, Int64, Int64, Int64?, Bool).self)
                }
            }
            let (name, roleName, wardPassword, lastTime, lastTTY, failed, consecutive, lockedUntil, disabled) = decoded
            guard let role = Role(rawValue: roleName) else {
                throw .directoryUnavailable(reason: "ward_user gives '\(name)' a role Ward does not know")
            }
            users.append(
                UserRecord(
                    name: name,
                    role: role,
                    passwordHash: nil,
                    lastSignOn: lastTime.map { SignOnRecord(time: $0, tty: lastTTY) },
                    failedAttempts: Int(failed),
                    consecutiveFailures: Int(consecutive),
                    lockedUntil: lockedUntil,
                    isDisabled: disabled,
                    passwordHashWithheld: wardPassword
                )
            )
        }
        return users
    }

    // MARK: Sign-on

    public func signOn(
        name: String,
        password: borrowing Password,
        tty: String?,
        at time: Int64,
        messages: inout [String]
    ) throws(AuthError) -> SignOnSummary {
        let (role, _, previous, failures) = try attempt(
            name: name,
            password: password,
            tty: tty,
            at: time,
            signsOn: true,
            messages: &messages
        )
        return SignOnSummary(user: name, role: role, previous: previous, failedAttempts: failures)
    }

    public func unlock(
        name: String,
        password: borrowing Password,
        tty: String?,
        at time: Int64,
        messages: inout [String]
    ) throws(AuthError) -> UserRecord {
        let (role, hash, _, _) = try attempt(
            name: name,
            password: password,
            tty: tty,
            at: time,
            signsOn: false,
            messages: &messages
        )
        return UserRecord(name: name, role: role, passwordHash: hash)
    }

    /// One password attempt, as `CredentialStore`'s: the account's state under its lock, the
    /// check, the outcome recorded. Returns the role, the hash checked, and (signing on) the
    /// sign-on before this one and the failures since.
    private func attempt(
        name: String,
        password: borrowing Password,
        tty: String?,
        at time: Int64,
        signsOn: Bool,
        messages: inout [String]
    ) throws(AuthError) -> (Role, PasswordHash?, SignOnRecord?, Int) {
        // A quick check holds the name's lock throughout; a slow one (PAM) between two steps.
        let holdsLock = authenticator.checksUnderStoreLock
        // Kept open only for the records store that shares it, and only when the user is in: a
        // lock screen holds no connection, and a locked session is not counted as connected.
        var keepsConnection = false
        defer { if !keepsConnection { link.close() } }
        let opened = connectedAt.withLock { value in
            defer { value = nil }
            return value
        }
        if let opened, ContinuousClock.now - opened > idleTrust { link.close() }
        // BEGIN is sent with the first step and COMMIT with the last, one wait for each pair: a
        // statement that fails inside the transaction makes the COMMIT after it a rollback.
        let begin: [PostgresQuery] = holdsLock ? ["BEGIN"] : []
        let commit: [PostgresQuery] = holdsLock ? ["COMMIT"] : []
        do throws(AuthError) {
            let started = try directory {
                try link.queries(begin + ["SELECT * FROM ward_sign_on_start(\(name), \(time))"])
            }
            let start = try directory {
                try started.last?.first.map { row in
                    try PostgresLink.decoded { try row.decode((Bool, String?, String?, Bool, Int64?).self) }
                }
            }
            guard case let (known, roleName, encoded, disabled, lockEnds)? = start else {
                throw .directoryUnavailable(reason: "ward_sign_on_start returned nothing")
            }
            if disabled { throw .accountDisabled(user: name) }
            if let lockEnds { throw .accountLocked(user: name, until: lockEnds) }
            var hash: PasswordHash?
            if let encoded {
                guard let parsed = PasswordHash(encoded: Substring(encoded)) else {
                    throw .directoryUnavailable(
                        reason: "the password hash of '\(name)' in ward_user is not an scrypt hash Ward can check"
                    )
                }
                hash = parsed
            }
            var user: UserRecord?
            if known {
                guard let role = roleName.flatMap(Role.init(rawValue:)) else {
                    throw .directoryUnavailable(reason: "ward_user gives '\(name)' a role Ward does not know")
                }
                user = UserRecord(name: name, role: role, passwordHash: hash)
            }
            let verdict = try authenticator.check(password, name: name, user: user, tty: tty)
            messages += verdict.messages
            let finish = try directory {
                try link.queries(
                    [
                        """
                        SELECT * FROM ward_sign_on_finish(\(name), \(verdict.isAccepted), \(time), \(tty),
                            \(Int32(clamping: lockout.maxFailedAttempts)), \(lockout.lockedUntil(from: 0)), \(signsOn))
                        """
                    ] + commit
                )[0].first.map { row in
                    try PostgresLink.decoded {
                        try row.decode((String, String?, Int64?, String?, Int32?, Int64?).self)
                    }
                }
            }
            guard case let (outcome, roleName, previousTime, previousTTY, failures, until)? = finish else {
                throw .directoryUnavailable(reason: "ward_sign_on_finish returned nothing")
            }
            switch outcome {
            case "disabled": throw .accountDisabled(user: name)
            case "locked": throw .accountLocked(user: name, until: until ?? time)
            case "accepted":
                guard let role = roleName.flatMap(Role.init(rawValue:)) else {
                    throw .directoryUnavailable(reason: "ward_user gives '\(name)' a role Ward does not know")
                }
                keepsConnection = lent.load(ordering: .relaxed)
                return (
                    role, hash, previousTime.map { SignOnRecord(time: $0, tty: previousTTY) }, Int(failures ?? 0)
                )
            default: throw .wrongCredentials
            }
        } catch {
            // Nothing to undo once COMMIT has run; a failure before it leaves the count as it was.
            if holdsLock, link.isOpen { _ = try? link.query("ROLLBACK") }
            throw error
        }
    }

    // MARK: Managing users (`ward user`)

    public func add(name: String, role: Role, password: borrowing Password) throws(AuthError) {
        guard UserRecord.isValidName(name) else { throw .invalidUserName(name) }
        try CredentialStore.checkStrength(password, minimum: minimumPasswordLength)
        try requireWriteAccess()
        let hash = try PasswordHash(password: password, parameters: parameters)
        try insert(name: name, role: role, hash: hash.encoded)
    }

    public func addSystemUser(name: String, role: Role) throws(AuthError) {
        guard UserRecord.isValidName(name) else { throw .invalidUserName(name) }
        try requireWriteAccess()
        try insert(name: name, role: role, hash: nil)
    }

    private func insert(name: String, role: Role, hash: String?) throws(AuthError) {
        let added = try directory {
            try link.query(
                """
                INSERT INTO ward_user (name, role, password_hash) VALUES (\(name), \(role.rawValue), \(hash))
                ON CONFLICT (name) DO NOTHING RETURNING name
                """
            )
        }
        if added.isEmpty { throw .userExists(name) }
    }

    public func setPassword(name: String, password: borrowing Password) throws(AuthError) {
        guard UserRecord.isValidName(name), let user = try user(named: name) else { throw .noSuchUser(name) }
        if user.usesSystemPassword { throw .systemPassword(user: name) }
        try CredentialStore.checkStrength(password, minimum: minimumPasswordLength)
        try requireWriteAccess()
        let hash = try PasswordHash(password: password, parameters: parameters).encoded
        try change(
            name,
            """
            UPDATE ward_user SET password_hash = \(hash), failed_attempts = 0, consecutive_failures = 0,
                locked_until = NULL
            WHERE name = \(name) RETURNING name
            """
        )
    }

    public func remove(name: String) throws(AuthError) {
        try requireWriteAccess()
        try change(name, "DELETE FROM ward_user WHERE name = \(name) RETURNING name")
    }

    public func clearLock(name: String) throws(AuthError) {
        try requireWriteAccess()
        try change(
            name,
            """
            UPDATE ward_user SET disabled = false, locked_until = NULL, consecutive_failures = 0
            WHERE name = \(name) RETURNING name
            """
        )
    }

    @discardableResult
    public func disable(name: String) throws(AuthError) -> Bool {
        try requireWriteAccess()
        // The value before the change, from the row the UPDATE locked.
        let rows = try directory {
            try link.query(
                """
                UPDATE ward_user SET disabled = true FROM (SELECT disabled FROM ward_user WHERE name = \(name) FOR UPDATE)
                    AS before
                WHERE ward_user.name = \(name) RETURNING before.disabled
                """
            )
        }
        guard let row = rows.first else { throw .noSuchUser(name) }
        return try directory { try PostgresLink.decoded { !(try row.decode(Bool.self)) } }
    }

    /// Runs `query`, which returns the changed user's name; none is `.noSuchUser`.
    private func change(_ name: String, _ query: PostgresQuery) throws(AuthError) {
        if try directory({ try link.query(query) }).isEmpty { throw .noSuchUser(name) }
    }

    /// Refuses, before anything is asked or changed, a database user that may only read the
    /// site's users: the sessions' role (`ward db migrate --session-role`).
    private func requireWriteAccess() throws(AuthError) {
        let writes = try directory {
            try PostgresLink.decoded {
                try link.query(
                    """
                    SELECT has_table_privilege('ward_user', 'INSERT') AND has_table_privilege('ward_user', 'UPDATE')
                        AND has_table_privilege('ward_user', 'DELETE')
                    """
                ).first?.decode(Bool.self)
            }
        }
        if writes != true { throw .directoryReadOnly(databaseUser: link.settings.user, server: link.server) }
    }

    /// Runs `body` against the database, its failures in `AuthError`'s words.
    @discardableResult
    private func directory<T>(_ body: () throws -> T) throws(AuthError) -> T {
        do {
            return try body()
        } catch let error as AuthError {
            throw error
        } catch {
            throw .directoryUnavailable(reason: "\(error)")
        }
    }
}
