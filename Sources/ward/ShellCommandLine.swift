import ArgumentParser
import CReadline
import Glibc
import Logging
import WardCore
import WardShell

/// `ward` with no subcommand: the interactive records shell on this terminal.
///
/// Start-up fails closed, before anyone is asked for a password: a home that is not safe, a site
/// file that does not parse, a plugin that does not start, or no credential store, and Ward exits
/// with the documented code and changes nothing.
struct ShellCommandLine {
    let global: GlobalOptions
    let user: String?

    func run() throws {
        hardenProcess()
        guard let terminal = Terminal(fd: STDIN_FILENO), isatty(STDOUT_FILENO) == 1 else {
            printError("standard input and output must be a terminal: Ward's shell runs only on a terminal.")
            throw ExitCode(64)
        }
        let logger = Logger(label: "ward")
        let clock = BootClock()
        let home = try openHome(global.home)
        let registry = makePluginRegistry()
        let policy: SitePolicy
        let chain: InterceptorChain
        do {
            policy = try SitePolicy.load(siteOption: global.site, knownPlugins: registry.names)
            chain = try registry.makeChain(
                policy: policy, environment: PluginEnvironment(home: home.path, policy: policy, logger: logger),
                clock: clock, session: SessionInfo(id: SessionID.make()), logger: logger)
        } catch {
            for problem in error.all { printError(problem.description) }
            throw ExitCode(error.sysexit)
        }
        let credentials = CredentialStore(home: home)
        guard credentials.exists else {
            printError("no users in \(home.path) yet. Add one with 'ward user add NAME', or try 'ward demo'.")
            throw ExitCode(AuthError.noStore(path: credentials.path).sysexit)
        }
        let limits = policy.effectivePolicy(user: user, role: nil)
        let session = InteractiveSession(
            terminal: terminal, clock: clock, chain: chain, runner: Shell(recordsHome: home.path), credentials: credentials, user: user,
            policy: SessionMachine.Policy(
                passwordTimeout: limits.passwordTimeout, signoutAfter: limits.signoutAfter,
                throttle: AttemptThrottle.Policy(maxFailedAttempts: limits.maxFailedAttempts)),
            logger: logger)
        let status = try session.run()
        if status != 0 { throw ExitCode(status) }
    }
}

/// The Ward home, created 0700 when missing; a home others can write is refused, with the fix.
func openHome(_ option: String?, create: Bool = true) throws -> WardHome {
    do {
        return try WardHome.open(option: option, create: create)
    } catch {
        printError(error.description)
        throw ExitCode(error.sysexit)
    }
}

/// No core dumps and no ptrace by other processes of the same user: a core file or a debugger
/// would carry whatever chart is open. Nothing turns this off.
func hardenProcess() {
    var limit = rlimit(rlim_cur: 0, rlim_max: 0)
    setrlimit(Int32(RLIMIT_CORE.rawValue), &limit)
    _ = ward_set_not_dumpable()
}

/// `ward: message` on standard error, as every Ward error reads.
func printError(_ message: String) {
    fputs("ward: \(message)\n", ward_stderr())
}
