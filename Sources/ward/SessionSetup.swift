import BuiltInPlugins
import Logging
import WardCore
import WardShell

/// What the shell and a batch both need before anyone signs on: the home, the site's policy,
/// the chain of interceptors and the credential store.
///
/// Fails closed, before anyone is asked for a password: a home that is not safe, a site file that
/// does not parse, a plugin that does not start, or no credential store, and Ward exits with the
/// documented code and changes nothing.
struct SessionSetup {
    let home: WardHome
    let policy: SitePolicy
    let chain: InterceptorChain
    let credentials: CredentialStore
    let clock: BootClock
    let logger: Logger

    /// - Parameter user: The `--user` name, when given: their `[user.*]` table and user file may
    ///   set the lockout rule the credential store applies (else the site's).
    init(global: GlobalOptions, user: String? = nil) throws {
        logger = Logger(label: "ward")
        clock = BootClock()
        // The home is created 0700 when missing; one others can write is refused, with the fix.
        home = try WardHome.open(option: global.home, create: true)
        policy = try SitePolicy.load(siteOption: global.site, plugins: pluginRegistry)
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
            logger: logger
        )
        credentials = CredentialStore(
            home: home,
            lockout: policy.effectivePolicy(user: user, role: nil).lockoutPolicy
        )
        guard credentials.exists else { throw CommandLineError.noUsers(home: home.path) }
    }

    /// The home's list of live sessions, where the session keeps its entry (`ward sessions`).
    var registry: SessionRegistry { SessionRegistry(home: home) }

    /// Every name a shell line may start with, from the shell's one table (`Shell.commands`):
    /// the plugins that keep a line's command (the audit log) keep only these.
    static let commandNames = Set(Shell.commands.flatMap { [$0.syntax.name] + $0.syntax.aliases })

    /// The sign-on and lock rules for `user` (their `[user.*]` table, else the site's).
    func machinePolicy(user: String?) -> SessionMachine.Policy {
        let limits = policy.effectivePolicy(user: user, role: nil)
        return SessionMachine.Policy(
            passwordTimeout: limits.passwordTimeout,
            signoutAfter: limits.signoutAfter,
            throttle: AttemptThrottle.Policy(maxFailedAttempts: limits.maxFailedAttempts)
        )
    }
}
