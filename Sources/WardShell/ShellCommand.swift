import ArgumentParser
import WardCore

/// One command of the records shell, parsed by swift-argument-parser like `ward`'s own.
///
/// Each command lives in its own file under `Commands/` and is listed once in `Shell.commands`,
/// which `help` and Tab completion read (tmux's `cmd_table`).
///
/// Roles are checked by `Shell.run`, never by the command: before parsing, against
/// `allowedRoles`; after parsing, against `restriction` (for a command such as `show` whose
/// arguments decide what it reveals). A refused command changes nothing.
public protocol ShellCommand: ParsableCommand {
    /// The roles (`clinician`, `clerk`, `auditor`) that may run this command; nil for everyone.
    static var allowedRoles: Set<String>? { get }

    /// A narrower rule that depends on the parsed arguments (`show notes`), or nil.
    var restriction: CommandRestriction? { get }

    /// Runs against the shell's state; throws `ShellError` for a failure the user should read.
    mutating func run(in shell: Shell) throws -> CommandResult
}

extension ShellCommand {
    public static var allowedRoles: Set<String>? { nil }

    public var restriction: CommandRestriction? { nil }
}

/// What a parsed command would do, and who may do it: `'show notes'` for clinicians only.
public struct CommandRestriction: Sendable, Equatable {
    /// The action as the refusal names it, e.g. `show notes`.
    public var action: String
    public var allowedRoles: Set<String>

    public init(action: String, allowedRoles: Set<String>) {
        self.action = action
        self.allowedRoles = allowedRoles
    }
}
