import ArgumentParser
import CReadline
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
            printError(
                "standard output is not a terminal. The shell needs one; to run commands from a script, use --batch FILE."
            )
            throw ExitCode(64)
        }
        let setup = try SessionSetup(global: global, user: user)
        let session = SessionDriver(
            frontEnd: TerminalFrontEnd(terminal: terminal, user: user),
            clock: setup.clock,
            chain: setup.chain,
            runner: Shell(recordsHome: setup.home.path),
            credentials: setup.credentials,
            policy: setup.machinePolicy(user: user),
            logger: setup.logger
        )
        let status = try session.run()
        if status != .success { throw ExitCode(status.rawValue) }
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

/// `text` on standard output with its controls shown (`Sanitizer`), never sent: what a
/// subcommand prints quotes user names, site-file values and log contents. Text that is already
/// sanitized (a table whose cells were) is printed with `print`, since escaping twice doubles
/// each backslash.
func printText(_ text: String, terminator: String = "\n") {
    print(Sanitizer.text(text), terminator: terminator)
}

/// `ward: message` on standard error, as every Ward error reads. Errors quote values, file
/// contents and user names: their controls are shown (`Sanitizer`), never sent.
func printError(_ message: String) {
    fputs("ward: " + Sanitizer.text(message) + "\n", ward_stderr())
}
