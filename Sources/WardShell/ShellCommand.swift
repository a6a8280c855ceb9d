import ArgumentParser
import WardCore

/// One command of the records shell, parsed by swift-argument-parser like `ward`'s own.
///
/// Each command lives in its own file under `Commands/` and is listed once in `Shell.commands`,
/// which `help` and Tab completion read (tmux's `cmd_table`).
public protocol ShellCommand: ParsableCommand {
    /// Runs against the shell's state; throws `ShellError` for a failure the user should read.
    mutating func run(in shell: Shell) throws -> CommandResult
}
