import WardCore

/// One command of the records shell: its syntax, declared once, and what it does.
///
/// Each command lives in its own file under `Commands/` and is listed once in `Shell.commands`,
/// which `help` and Tab completion read (tmux's `cmd_table`). `Shell.run` splits the line into
/// words, reads them against `syntax` (`CommandSyntax.parse`, linear in the line) and builds the
/// command with `init(_:)`, which checks what the syntax cannot (an MRN that is a name).
///
/// Roles are checked by `Shell.run`, never by the command: before parsing, against
/// `allowedRoles`; after parsing, against `restriction` (for a command such as `show` whose
/// arguments decide what it reveals). A refused command changes nothing.
///
/// Each command tells the chain what it did to each record it touched, after it did it
/// (`Shell.noteAccess`), with the outcome; a refusal of a command that acts on the current chart
/// is noted by `Shell.run` as that access `denied` (`currentChartAccess`, `accessDetail`).
public protocol ShellCommand: Sendable {
    /// Name, aliases, one-line abstract, operand and options.
    static var syntax: CommandSyntax { get }

    /// The roles (`clinician`, `clerk`, `auditor`) that may run this command; nil for everyone.
    static var allowedRoles: Set<Role>? { get }

    /// What the command does to the current chart (`show` reads it, `note` writes it), so that a
    /// refusal is recorded as that access denied; nil for a command that does not act on it.
    static var currentChartAccess: RecordAccess.Action? { get }

    /// True for a command that chooses the current chart (`open`): the shell leaves no chart
    /// current as soon as the line is read, so that however the command fails, no later command
    /// acts on the chart that was current before it.
    static var choosesCurrentChart: Bool { get }

    /// The command as the line asked for it; throws for a value the command cannot take.
    init(_ arguments: ParsedArguments) throws(UsageError)

    /// What the chain hears when the role may not run this command, beside the refusal's own
    /// access record (`currentChartAccess`): `audit`'s denied reading. `rest` is the line after
    /// the command's name. Nil by default.
    static func refusalEvent(_ rest: Substring) -> SessionEvent?

    /// A narrower rule that depends on the parsed arguments (`show notes`), or nil.
    var restriction: CommandRestriction? { get }

    /// What the access record names beside the action (the section `show` reads), or nil.
    var accessDetail: String? { get }

    /// Runs against the shell's state; throws `ShellError` for a failure the user should read.
    mutating func run(in shell: Shell) throws -> CommandResult
}

extension ShellCommand {
    public static var allowedRoles: Set<Role>? { nil }

    public static var currentChartAccess: RecordAccess.Action? { nil }

    public static var choosesCurrentChart: Bool { false }

    public static func refusalEvent(_ rest: Substring) -> SessionEvent? { nil }

    public var restriction: CommandRestriction? { nil }

    public var accessDetail: String? { nil }

    /// A usage error for this command: the rule broken, said as what to do.
    static func usageError(_ message: String) -> UsageError { UsageError(.invalid(message), syntax: syntax) }
}

/// What a parsed command would do, and who may do it: `'show notes'` for clinicians only.
public struct CommandRestriction: Sendable, Equatable {
    /// The action as the refusal names it, e.g. `show notes`.
    public var action: String
    public var allowedRoles: Set<Role>

    public init(action: String, allowedRoles: Set<Role>) {
        self.action = action
        self.allowedRoles = allowedRoles
    }
}
