import WardCore

/// `lock`: for stepping away. Everything loaded is wiped and the screen cleared at once, without
/// waiting for the idle timer.
struct LockCommand: ShellCommand {
    static let syntax = CommandSyntax(
        "lock",
        abstract: "Lock now: wipe what is loaded and clear the screen.",
        discussion: "After the password, the charts open now are open again, the current one current "
            + "(unless the site sets resume = false); while locked only their MRNs are kept, sealed."
    )

    init(_ arguments: ParsedArguments) {}

    func run(in shell: Shell) throws -> CommandResult { .lock }
}
