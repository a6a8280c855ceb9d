/// The session's time and attempt limits: the `[session]` table, after overrides.
///
/// Every limit here is a ceiling the site sets: a `[user.NAME]` or `[role.NAME]` table of the
/// site file may move it either way, a user's own file may only make it stricter.
public struct SessionPolicy: Equatable, Sendable {
    /// Lock after this long without a key (`idle-timeout`, default 5m).
    public var idleTimeout: Duration
    /// Show a notice this long before the idle lock; zero for none (`warn-before`, default 30s).
    public var warnBefore: Duration
    /// Locked this long: sign off entirely (`signout-after`, default 15m).
    public var signoutAfter: Duration
    /// Wrong passwords in a row before signing off (`max-failed-attempts`, default 5).
    public var maxFailedAttempts: Int
    /// The password prompt gives up after this long (`password-timeout`, default 2m).
    public var passwordTimeout: Duration
    /// Sign-on to forced lock however active the user is; nil when off, the default (`max-session`).
    public var maxSession: Duration?
    /// How long an account stays locked after `maxFailedAttempts` wrong passwords in a row,
    /// across processes (`lockout`, default 15m). The site's alone: a shorter lock is a weaker
    /// one, so a user file may not set it (`UserPreferences.parse`).
    public var lockout: Duration
    /// After unlocking, the charts that were open are open again (`resume`, default true). A
    /// user file may turn it off, never on where the site turns it off: while locked the list
    /// is kept sealed with a key from the password (`SessionResume`), and a site that wants
    /// nothing at all kept says so here.
    public var resume: Bool

    public init(
        idleTimeout: Duration = .seconds(300),
        warnBefore: Duration = .seconds(30),
        signoutAfter: Duration = .seconds(900),
        maxFailedAttempts: Int = 5,
        passwordTimeout: Duration = .seconds(60),
        maxSession: Duration? = nil,
        lockout: Duration = .seconds(900),
        resume: Bool = true
    ) {
        self.idleTimeout = idleTimeout
        self.warnBefore = warnBefore
        self.signoutAfter = signoutAfter
        self.maxFailedAttempts = maxFailedAttempts
        self.passwordTimeout = passwordTimeout
        self.maxSession = maxSession
        self.lockout = lockout
        self.resume = resume
    }

    /// Ward's built-in limits, used where the site file says nothing.
    public static let defaults = SessionPolicy()

    /// The setting `key` has, as a value that orders by strictness.
    public subscript(key: SessionKey) -> SessionSetting {
        get {
            switch key {
            case .idleTimeout: .duration(idleTimeout)
            case .warnBefore: .duration(warnBefore)
            case .signoutAfter: .duration(signoutAfter)
            case .maxFailedAttempts: .count(maxFailedAttempts)
            case .passwordTimeout: .duration(passwordTimeout)
            case .maxSession: maxSession.map { .duration($0) } ?? .off
            case .lockout: .duration(lockout)
            case .resume: .flag(resume)
            }
        }
        set {
            switch (key, newValue) {
            case (.idleTimeout, .duration(let d)): idleTimeout = d
            case (.warnBefore, .duration(let d)): warnBefore = d
            case (.signoutAfter, .duration(let d)): signoutAfter = d
            case (.maxFailedAttempts, .count(let n)): maxFailedAttempts = n
            case (.passwordTimeout, .duration(let d)): passwordTimeout = d
            case (.maxSession, .duration(let d)): maxSession = d
            case (.maxSession, .off): maxSession = nil
            case (.lockout, .duration(let d)): lockout = d
            case (.resume, .flag(let on)): resume = on
            default: assertionFailure("\(newValue) does not fit \(key)")
            }
        }
    }
}

/// A key of `[session]` (and of `[user.NAME]`, `[role.NAME]` and the user file's `[session]`).
public enum SessionKey: String, CaseIterable, Sendable, CustomStringConvertible {
    case idleTimeout = "idle-timeout"
    case warnBefore = "warn-before"
    case signoutAfter = "signout-after"
    case maxFailedAttempts = "max-failed-attempts"
    case passwordTimeout = "password-timeout"
    case maxSession = "max-session"
    case lockout = "lockout"
    case resume = "resume"

    public var description: String { rawValue }

    /// The durations a key accepts. Short minimums keep end-to-end tests quick; a site wanting
    /// no idle lock at all drops the `idle-timer` plugin instead of setting a huge timeout.
    public var durationRange: ClosedRange<Duration>? {
        switch self {
        case .idleTimeout: .seconds(1) ... .seconds(24 * 3600)
        case .warnBefore: .zero ... .seconds(3600)
        case .signoutAfter: .seconds(1) ... .seconds(24 * 3600)
        case .passwordTimeout: .seconds(1) ... .seconds(3600)
        case .maxSession: .seconds(1) ... .seconds(7 * 24 * 3600)
        case .lockout: .seconds(1) ... .seconds(24 * 3600)
        case .maxFailedAttempts, .resume: nil
        }
    }

    /// The counts a key accepts.
    public var countRange: ClosedRange<Int>? { self == .maxFailedAttempts ? 1...100 : nil }

    /// Reads this key from a table, nil when absent; throws a `ConfigError` naming its line.
    func read(from table: PluginSettings) throws -> SessionSetting? {
        if self == .resume {
            return try table.bool(rawValue).map { .flag($0) }
        }
        if let range = countRange {
            return try table.integer(rawValue, in: range).map { .count($0) }
        }
        if self == .maxSession, case .string("off")? = table.allValues.first(where: { $0.key == rawValue })?.value {
            _ = try table.string(rawValue)
            return .off
        }
        return try table.duration(rawValue, in: durationRange).map { .duration($0) }
    }
}

/// One session setting's value, ordered from strictest to loosest: a shorter time, fewer
/// attempts, any limit before `.off`, and a feature off before on.
public enum SessionSetting: Comparable, Sendable, CustomStringConvertible {
    case duration(Duration)
    case count(Int)
    case off
    /// A switch (`resume`): `false` is the stricter.
    case flag(Bool)

    public static func < (a: SessionSetting, b: SessionSetting) -> Bool {
        switch (a, b) {
        case (.duration(let x), .duration(let y)): x < y
        case (.count(let x), .count(let y)): x < y
        case (.flag(let x), .flag(let y)): !x && y
        case (.off, _): false
        case (_, .off): true
        default: false
        }
    }

    /// As a site file writes it: `"5m"`, `5`, `"off"`.
    public var description: String {
        switch self {
        case .duration(let d): "\"\(DurationText.format(d))\""
        case .count(let n): "\(n)"
        case .off: "\"off\""
        case .flag(let on): "\(on)"
        }
    }
}

/// The session settings one table sets: `[session]`, `[user.NAME]`, `[role.NAME]`, or the user
/// file's `[session]`, each with the line it is on.
public struct SessionOverride: Equatable, Sendable {
    /// The file the table is in.
    public var file: String
    /// The line of the table's header.
    public var line: Int
    /// What the table sets; keys it leaves out are absent.
    public var values: [SessionKey: SessionSetting] = [:]
    /// The line each setting is on.
    public var lines: [SessionKey: Int] = [:]

    public init(file: String, line: Int) {
        self.file = file
        self.line = line
    }

    /// `policy` with this table's settings in place of its own.
    public func applied(to policy: SessionPolicy) -> SessionPolicy {
        var policy = policy
        for (key, value) in values { policy[key] = value }
        return policy
    }

    /// Reads the session keys of `table`; problems (unknown keys too) go to `errors`.
    package static func read(_ table: PluginSettings, errors: inout [ConfigError]) -> SessionOverride {
        var result = SessionOverride(file: table.file, line: table.line)
        for key in SessionKey.allCases {
            do {
                if let value = try key.read(from: table) {
                    result.values[key] = value
                    result.lines[key] = table.line(of: key.rawValue)
                }
            } catch let error as ConfigError {
                errors.append(error)
            } catch {
                errors.append(.conflict(file: table.file, line: table.line(of: key.rawValue), message: "\(error)"))
            }
        }
        errors += table.unknownKeyErrors
        return result
    }

    /// An error when this table leaves `warn-before` no shorter than `idle-timeout` in `policy`.
    package func warningConflict(in policy: SessionPolicy) -> ConfigError? {
        guard policy.warnBefore > .zero, policy.warnBefore >= policy.idleTimeout else { return nil }
        let line = lines[.warnBefore] ?? lines[.idleTimeout] ?? self.line
        return .conflict(
            file: file,
            line: line,
            message: "'warn-before' (\(DurationText.format(policy.warnBefore))) must be shorter than 'idle-timeout'"
                + " (\(DurationText.format(policy.idleTimeout))); shorten it, or set it to \"0s\" for no warning."
        )
    }
}
