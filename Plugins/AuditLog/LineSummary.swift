/// What the audit log keeps of a command line before it runs: the command's name, and nothing
/// else.
///
/// What the command then did to a record (the MRN opened, the section read, the outcome) is not
/// read from the line: the shell tells it as an access event after it ran (`RecordAccess`), and
/// the audit log records that. The line's record exists so that a command that crashes Ward is
/// still on record.
///
/// | line                 | recorded                                    |
/// | -------------------- | ------------------------------------------- |
/// | `open MRN`           | command `open` (the MRN comes from the access record) |
/// | `note TEXT`          | command `note` only, never the text         |
/// | `find NAME…`         | command `find` only: a name is patient data |
/// | anything unknown     | command `?`: the first word might be a name or a password |
///
/// - Important: Never widen this to "record the whole line": a mistyped line can hold a
///   password or a patient's name, and the audit log outlives every chart.
public struct LineSummary: Equatable, Sendable {
    /// The command's name, or `?` for a word that is not one of Ward's commands.
    public var command: String

    /// Summarises `text`; nil for a blank line, which runs nothing.
    ///
    /// - Parameter commands: The names a line may start with: the shell's commands and their
    ///   aliases, as the shell lists them (`PluginEnvironment.commandNames`), never a copy kept
    ///   here. An allow-list, so that a first word that is not a command (a password typed at the
    ///   prompt by mistake, a patient's name) is never written.
    public init?(_ text: String, commands: Set<String>) {
        guard let first = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).first else { return nil }
        self.command = commands.contains(String(first)) ? String(first) : "?"
    }

    public init(command: String) {
        self.command = command
    }

    /// `command`.
    var fields: [(key: String, value: CanonicalJSON.Value)] {
        [("command", .string(command))]
    }
}
