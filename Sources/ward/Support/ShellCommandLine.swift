import ArgumentParser
import Glibc
import Logging
import WardCore
import WardShell

/// `ward` with no subcommand on a terminal: the interactive records shell.
///
/// Plain values, not the parser's option groups: `ward` alone starts it without parsing at all
/// (`Ward.main`).
struct ShellCommandLine {
    /// `--home`, `--site`, `--user`, when given.
    var home: String?
    var site: String?
    var user: String?

    func run() throws {
        guard let terminal = Terminal(fd: STDIN_FILENO), isatty(STDOUT_FILENO) == 1 else {
            throw CommandLineError.noTerminal
        }
        let setup = try SessionSetup(home: home, site: site, user: user)
        // Standard output is a terminal here (checked above); `TerminalStyle` checks it again so
        // its rule reads whole in one place.
        let style = TerminalStyle(
            setup.policy.preferences?.display,
            noColor: getenv("NO_COLOR").map { String(cString: $0) },
            outputIsTerminal: isatty(STDOUT_FILENO) == 1
        )
        let shell = try setup.recordsShell()
        shell.auditTrail = setup.auditTrail
        // Output taller than the window is paged inside Ward, unless the user file says
        // `[display] pager = false`.
        let pages = setup.policy.preferences?.display.pager == false ? nil : PageBuffer(style: style)
        if let pages { shell.output = TextOutput(print: pages.write, printHeader: pages.writeHeader) }
        (shell.output as? TextOutput)?.style = style
        // The executable reads the environment, once; the audit log is told the source.
        let frontEnd = TerminalFrontEnd(
            terminal: terminal,
            user: user,
            sshConnection: getenv("SSH_CONNECTION").map { String(cString: $0) },
            style: style,
            pages: pages
        )
        try setup.runSession(frontEnd: frontEnd, runner: shell, user: user, resumes: true)
    }
}

/// `text` on standard output with its controls shown (`Sanitizer`), never sent: what a
/// subcommand prints quotes user names, site-file values and log contents. Text that is already
/// sanitized (a table whose cells were) is printed with `print`, since escaping twice doubles
/// each backslash.
func printText(_ text: String, terminator: String = "\n") {
    print(Sanitizer.text(text), terminator: terminator)
}
