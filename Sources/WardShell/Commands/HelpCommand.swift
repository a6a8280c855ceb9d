import ArgumentParser
import WardCore

/// `help [COMMAND]`: the list of commands, or one command's usage.
struct HelpCommand: ShellCommand {
    static let configuration = CommandConfiguration(
        commandName: "help", abstract: "List the commands, or show how to use one.")

    @Argument(help: "The command to explain.")
    var command: String?

    func run(in shell: Shell) throws -> CommandResult {
        if let command {
            guard let type = Shell.command(named: command) else {
                throw ShellError("no command '\(command)'. Type 'help' for the list.")
            }
            shell.write(type.helpMessage(columns: nil).trimmingSuffixNewlines())
            return .succeeded
        }
        let names = Shell.commands.map { type -> String in
            let c = type.configuration
            return ([c.commandName ?? ""] + c.aliases).joined(separator: ", ")
        }
        let width = names.map(\.count).max() ?? 0
        shell.write("Commands:")
        for (name, type) in zip(names, Shell.commands) {
            let pad = String(repeating: " ", count: width - name.count)
            shell.write("  \(name)\(pad)  \(type.configuration.abstract)")
        }
        shell.write("Type 'help COMMAND' for one command. Tab completes commands.")
        return .succeeded
    }
}

extension String {
    func trimmingSuffixNewlines() -> String {
        var s = self
        while s.hasSuffix("\n") { s.removeLast() }
        return s
    }
}
