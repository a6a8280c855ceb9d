import WardCore

/// `logout` (also `exit`, `quit`, and Ctrl-D at an empty prompt): ends the session.
struct LogoutCommand: ShellCommand {
    static let syntax = CommandSyntax("logout", aliases: ["exit", "quit"], abstract: "Sign off and end the session.")

    init(_ arguments: ParsedArguments) {}

    func run(in shell: Shell) throws -> CommandResult { .signOff }
}
