import ArgumentParser
import WardCore

/// `logout` (also `exit`, `quit`, and Ctrl-D at an empty prompt): ends the session.
struct LogoutCommand: ShellCommand {
    static let configuration = CommandConfiguration(
        commandName: "logout", abstract: "Sign off and end the session.", aliases: ["exit", "quit"])

    func run(in shell: Shell) throws -> CommandResult { .signOff }
}
