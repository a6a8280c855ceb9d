import ArgumentParser
import BuiltInPlugins
import CScrub
import CWardSystem
import Glibc
import WardCore

extension Ward {
    /// `ward exec -- COMMAND [ARGS…]`: an interactive program the site allows (psql, sqlite3),
    /// run in a pseudo-terminal behind the same sign-on, chain and lock as the records shell
    /// (`ExecFrontEnd`).
    struct Exec: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "exec",
            abstract: "Run a program the site allows (psql, sqlite3) under Ward's sign-on, audit log and lock.",
            discussion: """
                Ward signs you on, then starts COMMAND in a new pseudo-terminal and passes every key \
                through the site's interceptors on its way to it. When the session locks (idle, \
                Ctrl-\\ twice, away after Ctrl-Z, the window out of focus), the screen and scrollback \
                are cleared and the program is stopped (or ended, with on-lock = "kill") until you \
                type the password again. Ward exits with the program's exit status.

                Only programs in the site file's [exec] allow list may run; a name is looked up on \
                /usr/local/bin:/usr/bin:/bin, never your PATH. Put '--' before the command so that \
                its own options are not taken for Ward's:

                  ward exec -- sqlite3 extract.db
                  ward exec --user night -- psql -h db.example clinical

                The site may put its own arguments first and limit yours to names of files the \
                program may open, or to none (args, user-args): a refused argument exits 77 before \
                sign-on. The program runs in a sandbox: it starts no other program unless the site \
                allows it (each refusal is on record), reads and writes only the system's and the \
                site's paths, and nothing it starts outlives the session. A kernel that cannot \
                build the sandbox (Landlock, Linux 5.13) gets exit 69 unless the site turned it off.

                Ward cannot wipe another program's memory: a frozen program keeps what it loaded. \
                See ward(1), EXEC, and ward-site.toml(5), [exec].
                """
        )

        @OptionGroup var global: GlobalOptions

        @Option(name: .long, help: ArgumentHelp("The user to sign on as; asked for when missing.", valueName: "name"))
        var user: String?

        /// Everything after the `--` that ends Ward's own options, so that `sqlite3 -header` keeps
        /// its options and `--help` after `--` is the program's.
        @Argument(
            parsing: .postTerminator,
            help: ArgumentHelp(
                "The program to run (allowed by the site's [exec] table) and its arguments.",
                valueName: "command"
            )
        )
        var command: [String] = []

        func validate() throws {
            guard let first = command.first, !first.isEmpty else {
                throw ValidationError("Name the program to run after '--', as in 'ward exec -- sqlite3 extract.db'.")
            }
        }

        /// What the site allows is checked first, the program and then its arguments (77, before
        /// anyone signs on), then the terminal (64: a script has no `exec`).
        func run() throws {
            precondition(ward_scrub_installed() == 1)
            let site = try SitePolicy.load(siteOption: global.site, plugins: pluginRegistry)
            let program = try site.exec.program(for: command[0])
            let arguments = try program.commandLine(userArguments: Array(command.dropFirst()))
            let sandbox = try Self.sandbox(for: program)
            // A rule can only allow: a path that reaches the home or the audit log would hand
            // them to the program, so the session refuses it too, not only `ward config check`
            // (a missing may-run helper is the check's alone).
            let home = WardHome.resolvePath(option: global.home)
            let exposing = site.exec.pathProblems(
                home: home,
                userFile: SitePolicy.userFilePath(environment: ConfigEnvironment.current),
                auditLog: PolicyCheck.auditLogPath(site, home: home),
                isExecutable: { _ in true }
            )
            if let error = ConfigError.combining(exposing) { throw error }
            guard let terminal = Terminal(fd: STDIN_FILENO), isatty(STDOUT_FILENO) == 1 else {
                throw ExecCommandError.noTerminal
            }
            let setup = try SessionSetup(home: global.home, site: global.site, user: user, policy: site)
            // What the program leaves behind (a `setsid` job) becomes Ward's to end, not init's.
            guard ward_set_child_subreaper() == 0 else { throw SystemError("prctl(PR_SET_CHILD_SUBREAPER)") }
            let runner = ProgramRunner(
                program: program,
                arguments: arguments,
                environment: ConfigEnvironment.current.map { "\($0)=\($1)" }.sorted(),
                sandbox: sandbox
            )
            let frontEnd = ExecFrontEnd(
                terminal: terminal,
                user: user,
                program: runner,
                lockKey: setup.policy.exec.lockKey,
                killGrace: setup.policy.exec.killGrace,
                sshConnection: getenv("SSH_CONNECTION").map { String(cString: $0) }
            )
            try setup.runSession(frontEnd: frontEnd, runner: runner, user: user, resumes: false)
        }
    }
}

extension Ward.Exec {
    /// The program's sandbox on this kernel; refused (69) when the kernel cannot build it.
    ///
    /// `WARD_SANDBOX_PROBE=fail` makes the probe fail as an old kernel's would: the tests see
    /// the refusal on any kernel. It can only take the sandbox away, never give a program more.
    static func sandbox(for program: ExecProgram) throws(ExecRefusal) -> ExecSandbox {
        if let probe = getenv("WARD_SANDBOX_PROBE"), String(cString: probe) == "fail" {
            return try ExecSandbox(program: program, landlockABI: -ENOSYS)
        }
        return try ExecSandbox(program: program)
    }
}

/// Why `ward exec` does not start, apart from the site's refusal (`ExecRefusal`).
enum ExecCommandError: WardError, Equatable {
    /// Standard input or output is not a terminal: there is no batch mode for a program.
    case noTerminal

    var description: String {
        switch self {
        case .noTerminal:
            "ward exec needs a terminal on standard input and output; a script cannot run a program under Ward."
        }
    }

    var exitStatus: ExitStatus { .usage }
}
