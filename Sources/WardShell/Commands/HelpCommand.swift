import WardCore

/// `help [COMMAND]`: the list of commands, or one command's usage.
struct HelpCommand: ShellCommand {
    static let syntax = CommandSyntax(
        "help",
        abstract: "List the commands, or show how to use one.",
        operand: .word(name: "command", help: "The command to explain.", required: false)
    )

    let command: String?

    init(_ arguments: ParsedArguments) { command = arguments.operands.first }

    func run(in shell: Shell) throws -> CommandResult {
        if let command {
            guard let type = Shell.command(named: command) else {
                throw ShellError("no command '\(command)'. Type 'help' for the list.")
            }
            shell.write(type.syntax.help)
            return .succeeded
        }
        let names = Shell.commands.map { type -> String in
            ([type.syntax.name] + type.syntax.aliases).joined(separator: ", ")
        }
        let width = names.map(\.count).max() ?? 0
        shell.write("Commands:")
        for (name, type) in zip(names, Shell.commands) {
            let pad = String(repeating: " ", count: width - name.count)
            shell.write("  \(name)\(pad)  \(type.syntax.abstract)")
        }
        shell.write("Type 'help COMMAND' for one command. Tab completes commands.")
        shell.write("Output taller than the window is paged: space next page, b back, / search, h keys, q quit.")
        return .succeeded
    }
}
