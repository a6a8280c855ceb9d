import AuditLog
import BuiltInPlugins
import Logging
import WardCore
import WardRecords
import WardShell

/// What the shell and a batch both need before anyone signs on: the home, the site's policy,
/// the chain of interceptors and the credential store, checking passwords with the site's
/// `[auth] source` (Ward's hashes, or PAM).
///
/// Fails closed, before anyone is asked for a password: a home that is not safe, a site file that
/// does not parse, a chain without a plugin `[chain] require` names (the audit log and the idle
/// timer unless the site says otherwise), a plugin that does not start, no credential store, or a
/// `sessions/` directory that cannot hold the session's entry, and Ward exits with the documented
/// code and changes nothing.
struct SessionSetup {
    let home: WardHome
    let policy: SitePolicy
    let chain: InterceptorChain
    let credentials: any UserDirectory
    let clock: BootClock
    let logger: Logger
    /// Where the session lists itself (`ward sessions`) and whence `ward lock` reaches it: the
    /// home's files, or the site's server when the records are there.
    let registry: any SessionDirectory

    /// - Parameters:
    ///   - user: The `--user` name, when given: their `[user.*]` table and user file may set the
    ///     lockout rule the credential store applies (else the site's).
    ///   - home: `--home`, when given.
    ///   - site: `--site`, when given.
    ///   - policy: The site's policy when the caller read it already (`ward exec` checks its
    ///     program against it first): the session then runs under the very policy that was
    ///     checked, not a second reading of a file that may have changed in between.
    init(
        home homeOption: String?,
        site siteOption: String?,
        user: String? = nil,
        policy checked: SitePolicy? = nil
    ) throws {
        logger = Logger(label: "ward")
        clock = BootClock()
        // The home is created 0700 when missing; one others can write is refused, with the fix.
        home = try WardHome.open(option: homeOption, create: true)
        policy = try checked ?? SitePolicy.load(siteOption: siteOption, plugins: pluginRegistry)
        // Before any time is shown: the lockout message at sign-on is the first.
        LocalTime.show(in: policy.records.shownZone)
        // A chain without the audit log or the idle timer runs only where the site says so.
        try policy.requireGuards()
        let auditSink = try Self.databaseAuditSink(policy: policy, home: home, logger: logger)
        chain = try pluginRegistry.makeChain(
            policy: policy,
            environment: PluginEnvironment(
                home: home.path,
                policy: policy,
                logger: logger,
                commandNames: Self.commandNames
            ),
            clock: clock,
            session: SessionInfo(id: SessionID.make()),
            logger: logger,
            preparing: { ($0 as? AuditLog)?.sink = auditSink }
        )
        // The home's file, or the site's database when the records are there (`StoreBackend`).
        credentials = try StoreBackend(records: policy.records, home: home).userDirectory(
            lockout: policy.effectivePolicy(user: user, role: nil).lockoutPolicy,
            authentication: policy.auth
        )
        if let file = credentials as? CredentialStore, !file.exists {
            throw CommandLineError.noUsers(home: home.path)
        }
        // A session `ward lock` cannot find is not started: refused with the fix, 78 or 73 (69
        // for a server that cannot be reached).
        registry = try StoreBackend(records: policy.records, home: home).sessionDirectory()
        try registry.checkWritable()
    }

    /// The trail an auditor's `audit` reads: the site's audit log (its `path`), else the home's.
    var auditTrail: SessionAuditTrail {
        let settings = policy.plugins.first { $0.name == AuditLog.name }
        let path = (try? settings?.string("path")).flatMap { $0 }
        return SessionAuditTrail(path: path ?? home.auditLogPath)
    }

    /// Every name a shell line may start with, from the shell's one table (`Shell.commands`):
    /// the plugins that keep a line's command (the audit log) keep only these.
    static let commandNames = Set(Shell.commands.flatMap { [$0.syntax.name] + $0.syntax.aliases })

    /// What brings the open charts back after an unlock, when `[session] resume` holds for the
    /// user who signs on (their table, their role's, the site's, then their own file).
    func resume() -> SessionResume {
        SessionResume(logger: logger) { [policy] user, role in policy.effectivePolicy(user: user, role: role).resume }
    }

    /// The sign-on and lock rules for `user` (their `[user.*]` table, else the site's).
    func machinePolicy(user: String?) -> SessionMachine.Policy {
        let limits = policy.effectivePolicy(user: user, role: nil)
        return SessionMachine.Policy(
            passwordTimeout: limits.passwordTimeout,
            signoutAfter: limits.signoutAfter,
            throttle: AttemptThrottle.Policy(maxFailedAttempts: limits.maxFailedAttempts)
        )
    }

    /// Runs one session of `frontEnd` over `runner` with what was set up here, and throws the
    /// exit status when it is not success: the one place a `SessionDriver` is put together, for
    /// the shell, a script and `ward exec` alike. `resumes`: whether the charts a lock closes
    /// come back after the unlock (`[session] resume`); a program has none.
    func runSession(frontEnd: any SessionFrontEnd, runner: any CommandRunner, user: String?, resumes: Bool) throws {
        let session = SessionDriver(
            frontEnd: frontEnd,
            clock: clock,
            chain: chain,
            runner: runner,
            credentials: credentials,
            policy: machinePolicy(user: user),
            logger: logger,
            resume: resumes ? resume() : nil,
            registry: registry,
            banner: policy.access.banner
        )
        let status = try session.run()
        if status != .success { throw CommandLineError.reported(status) }
    }
}
