import ArgumentParser
import Glibc
import Logging
import WardCore
import WardShell

/// `ward` with no subcommand on a terminal: the interactive records shell.
struct ShellCommandLine {
    let global: GlobalOptions
    let user: String?

    func run() throws {
        guard let terminal = Terminal(fd: STDIN_FILENO), isatty(STDOUT_FILENO) == 1 else {
            throw CommandLineError.noTerminal
        }
        let setup = try SessionSetup(global: global, user: user)
        let session = SessionDriver(
            // The executable reads the environment, once; the audit log is told the source.
            frontEnd: TerminalFrontEnd(
                terminal: terminal,
                user: user,
                sshConnection: getenv("SSH_CONNECTION").map { String(cString: $0) }
            ),
            clock: setup.clock,
            chain: setup.chain,
            runner: Shell(recordsHome: setup.home.path),
            credentials: setup.credentials,
            policy: setup.machinePolicy(user: user),
            logger: setup.logger,
            registry: setup.registry,
            banner: setup.policy.access.banner
        )
        let status = try session.run()
        if status != .success { throw CommandLineError.reported(status) }
    }
}

/// `text` on standard output with its controls shown (`Sanitizer`), never sent: what a
/// subcommand prints quotes user names, site-file values and log contents. Text that is already
/// sanitized (a table whose cells were) is printed with `print`, since escaping twice doubles
/// each backslash.
func printText(_ text: String, terminator: String = "\n") {
    print(Sanitizer.text(text), terminator: terminator)
}
