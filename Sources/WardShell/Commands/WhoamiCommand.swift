import WardCore

/// `whoami`: on a shared terminal, the first thing to check before reading a chart.
struct WhoamiCommand: ShellCommand {
    static let syntax = CommandSyntax("whoami", abstract: "Show who is signed on, and with which role.")

    init(_ arguments: ParsedArguments) {}

    func run(in shell: Shell) throws -> CommandResult {
        shell.write("\(shell.user ?? "nobody") (\(shell.role?.rawValue ?? "no role"))", .line)
        return .succeeded
    }
}
