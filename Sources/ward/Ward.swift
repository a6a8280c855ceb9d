import ArgumentParser
import CScrub
import Glibc
import Logging
import WardCore

/// `ward`: a guarded readline shell over patient records.
///
/// With no subcommand it runs `ward shell`: the records shell on the terminal, or a script with
/// `--batch`. Each subcommand is a nested type in its own file (`Ward.Demo` in Demo.swift).
@main
struct Ward: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ward",
        abstract: "A guarded shell for patient records.",
        discussion: """
            Every key, line, signal and focus change passes a chain of interceptors configured by \
            the site (idle timer, audit log, suspend guard). When the session locks, everything \
            loaded is wiped from memory and from the screen, and the password is asked again.

            'ward' alone is 'ward shell': the records shell, or a script with --batch FILE \
            (see 'ward shell --help'). As a login shell or sshd's ForceCommand, a command the \
            SSH client gives is refused unless the site allows it as a batch (DEPLOYMENT in ward(1)).
            """,
        version: "0.1.0",
        subcommands: [
            RecordsShell.self, Exec.self, Demo.self, Import.self, Db.self, User.self, Sessions.self,
            Lock.self, Audit.self,
            Config.self, Plugins.self,
        ],
        defaultSubcommand: RecordsShell.self
    )

    /// `ward --home DIR audit show` as well as `ward audit show --home DIR`: the subcommand's own
    /// `GlobalOptions` decode the same values.
    @OptionGroup var global: GlobalOptions

    /// Opens closed standard descriptors on /dev/null (`openClosedStandardDescriptors()`), so no
    /// file Ward opens can become standard output; hardens the process (`hardenProcess()`: not
    /// dumpable, no core, umask 077) and has large freed blocks leave it
    /// (`returnLargeBlocksToTheKernel()`) before anything is parsed or read, picks the one
    /// logging backend, then parses the command line and runs the command.
    ///
    /// Diagnostics go to standard error at warning and above: the terminal is the user's screen,
    /// and an info line there would break the prompt. Log text never carries a patient field or a
    /// secret.
    ///
    /// Started as a login shell (`-ward`) or by sshd's `ForceCommand` with a command the client
    /// gave, Ward reads the command line as `SSHEntry` says: a client's command runs only when
    /// the site allows it, and is otherwise refused with 77.
    ///
    /// The one place the process ends on an error. A `WardError` (a site file's problems, an
    /// unsafe home, a refused password, a session's last status) is printed as `ward: <line>` for
    /// each line of its description, and its `exitStatus` is the process's; one whose
    /// description is empty has said everything already. The parser's errors keep its format
    /// (`Error: …`, the usage, exit 64); its own `main` would print them raw, and they quote what
    /// was typed (`--since $'\e[2J'`), so this one shows their controls (`StandardError`). Help
    /// and the version are Ward's own text and go to standard output as they are.
    static func main() {
        openClosedStandardDescriptors()
        hardenProcess()
        returnLargeBlocksToTheKernel()
        LoggingSystem.bootstrap { StandardErrorLogHandler(label: $0) }
        do {
            // A login shell, or sshd's ForceCommand with the client's command (SSHEntry).
            let arguments = try SSHEntry.arguments()
            if let script = completionScript(arguments) {
                print(script, terminator: "")
                return
            }
            if arguments.isEmpty, isatty(STDIN_FILENO) == 1 {
                // `ward` alone on a terminal, the way a clinician starts it: the shell with every
                // default, as the parse below would give. The parser's reading of the commands'
                // types (reflection, a search of every protocol conformance in the binary for
                // each) was three quarters of the time to the first prompt.
                precondition(ward_scrub_installed() == 1)
                return try ShellCommandLine().run()
            }
            if let unknown = UnknownSubcommand.find(in: arguments) { throw unknown }
            var command = try parseAsRoot(arguments)
            try command.run()
        } catch let error as any WardError {
            if !error.description.isEmpty { StandardError.report(error.description) }
            Glibc.exit(error.exitStatus.rawValue)
        } catch {
            let code = exitCode(for: error)
            let message = fullMessage(for: error)
            if code == .success {
                if !message.isEmpty { print(message) }
            } else if !message.isEmpty {
                StandardError.write(message + "\n")
            }
            Glibc.exit(code.rawValue)
        }
    }

    /// The completion script `--generate-completion-script SHELL` asks for, from
    /// `CompletionRoot`; nil for any other command line, which the parser then reads (and
    /// refuses a shell it does not know).
    private static func completionScript(_ arguments: [String]) -> String? {
        let shell: String
        switch arguments.count {
        case 2 where arguments[0] == "--generate-completion-script": shell = arguments[1]
        case 1 where arguments[0].hasPrefix("--generate-completion-script="):
            shell = String(arguments[0].dropFirst("--generate-completion-script=".count))
        default: return nil
        }
        return CompletionRoot.script(for: shell)
    }
}
