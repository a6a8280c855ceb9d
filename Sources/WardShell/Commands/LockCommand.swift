import WardCore

/// `lock`: for stepping away. Everything loaded is wiped and the screen cleared at once, without
/// waiting for the idle timer.
struct LockCommand: ShellCommand {
    static let syntax = CommandSyntax("lock", abstract: "Lock now: wipe what is loaded and clear the screen.")

    init(_ arguments: ParsedArguments) {}

    func run(in shell: Shell) throws -> CommandResult { .lock }
}
