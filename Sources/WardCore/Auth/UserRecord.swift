/// One user in the credential store: name, role, password hash (none for a user whose password
/// is the system's), and what sign-on shows them about their account (VistA's "You last signed
/// on ... There were N unsuccessful attempts").
public struct UserRecord: Sendable {
    /// The sign-on name, valid per `isValidName(_:)`.
    public var name: String
    /// What the user may do.
    public var role: Role
    /// scrypt hash of the password, with its salt and parameters; nil for a user added with
    /// `--pam`, whose password is the system's and is checked by PAM (`PAMAuthenticator`).
    /// Such a user can sign on only where the site's `[auth] source` is `pam`.
    public var passwordHash: PasswordHash?
    /// The last successful sign-on; nil before the first.
    public var lastSignOn: SignOnRecord?
    /// Failed attempts (sign-on or unlock) since the last successful sign-on: what the owner is
    /// told at the next sign-on.
    public var failedAttempts: Int
    /// Wrong passwords in a row toward the next lock: since the last right password, the last
    /// lock or the last `ward user unlock`. Reaching `LockoutPolicy.maxFailedAttempts` locks.
    public var consecutiveFailures: Int
    /// The account is locked until this wall-clock time (seconds since 1970); nil when not locked.
    /// A time, not a duration: every process on the host must agree when the lock ends.
    public var lockedUntil: Int64?
    /// `ward user disable`: no sign-on and no unlock until `ward user unlock` enables it again.
    public var isDisabled: Bool
    /// Ward keeps a password for this user, but this copy was read without its hash: a directory
    /// whose readers may not see hashes (the site's users on PostgreSQL, `UserDirectory`).
    public var passwordHashWithheld: Bool

    public init(
        name: String,
        role: Role,
        passwordHash: PasswordHash?,
        lastSignOn: SignOnRecord? = nil,
        failedAttempts: Int = 0,
        consecutiveFailures: Int = 0,
        lockedUntil: Int64? = nil,
        isDisabled: Bool = false,
        passwordHashWithheld: Bool = false
    ) {
        self.name = name
        self.role = role
        self.passwordHash = passwordHash
        self.lastSignOn = lastSignOn
        self.failedAttempts = failedAttempts
        self.consecutiveFailures = consecutiveFailures
        self.lockedUntil = lockedUntil
        self.isDisabled = isDisabled
        self.passwordHashWithheld = passwordHashWithheld && passwordHash == nil
    }

    /// Whether Ward keeps no password for this user: PAM checks the system's.
    public var usesSystemPassword: Bool { passwordHash == nil && !passwordHashWithheld }

    /// Whether the account is locked at `time` (wall-clock seconds since 1970).
    public func isLocked(at time: Int64) -> Bool {
        guard let lockedUntil else { return false }
        return time < lockedUntil
    }

    /// `[a-z_][a-z0-9_.-]{0,31}`: the POSIX-portable user names, lowercase. Nothing that needs
    /// quoting in the store, an audit record or a terminal.
    public static func isValidName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard (1...32).contains(bytes.count) else { return false }
        for (i, c) in bytes.enumerated() {
            switch c {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "_"): continue
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."):
                if i == 0 { return false }
            default: return false
            }
        }
        return true
    }
}

/// When and from where a user last signed on.
public struct SignOnRecord: Sendable, Equatable {
    /// Wall-clock seconds since 1970-01-01 UTC (not the session's boot clock: this is shown
    /// to a person and survives reboots).
    public var time: Int64
    /// The terminal, as `ttyname` gives it (`/dev/pts/3`); nil when there was none.
    public var tty: String?

    public init(time: Int64, tty: String?) {
        self.time = time
        self.tty = tty
    }
}

extension SignOnRecord {
    /// `Nov 22, 2025 at 09:14`, in the process's time zone.
    public var localTimeDescription: String { SignOnSummary.localTime(time) }
}
