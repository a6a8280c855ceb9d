/// What the audit log keeps of a command line: the command's name, the MRN it names, and its
/// arguments only when they cannot carry clinical content.
///
/// The rule is an allow-list, so a new command is recorded by name only until someone decides
/// its arguments are safe:
///
/// | line                 | recorded                                    |
/// | -------------------- | ------------------------------------------- |
/// | `open MRN`           | command `open`, `mrn`                       |
/// | `find MRN`           | command `find`, `mrn` (a single MRN-shaped word) |
/// | `find NAME…`         | command `find` only: a name is patient data |
/// | `show SECTION`       | command `show`, `args` = the section        |
/// | `help COMMAND`       | command `help`, `args` = the command        |
/// | `note TEXT`          | command `note` only, never the text         |
/// | anything unknown     | command `?`: the first word might be a name |
///
/// - Important: Never widen this to "record the whole line": a mistyped line can hold a
///   password or a patient's name, and the audit log outlives every chart.
public struct LineSummary: Equatable, Sendable {
    /// The command's name, or `?` for a word that is not one of Ward's commands.
    public var command: String
    /// Arguments known to carry no clinical content (`show meds` → `meds`).
    public var arguments: String?
    /// The MRN the line names.
    public var mrn: String?

    /// The shell's commands, as DESIGN.md lists them.
    public static let commands: Set<String> = [
        "find", "open", "show", "note", "close", "charts", "whoami", "lock", "logout", "exit", "quit", "help",
    ]

    /// The sections `show` takes; the only arguments recorded verbatim besides a command name.
    public static let sections: Set<String> = [
        "summary", "allergies", "meds", "problems", "vitals", "labs", "notes", "encounters",
    ]

    /// Summarises `text`; nil for a blank line, which runs nothing.
    public init?(_ text: String) {
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        guard let first = words.first else { return nil }
        let rest = Array(words.dropFirst())
        guard Self.commands.contains(first) else {
            self.command = "?"
            return
        }
        self.command = first
        switch first {
        case "open" where rest.count == 1 && Self.isMRN(rest[0]):
            mrn = rest[0]
        case "find" where rest.count == 1 && Self.isMRN(rest[0]):
            mrn = rest[0]
        case "show" where rest.count == 1 && Self.sections.contains(rest[0]):
            arguments = rest[0]
        case "help" where rest.count == 1 && Self.commands.contains(rest[0]):
            arguments = rest[0]
        default:
            break
        }
    }

    public init(command: String, arguments: String? = nil, mrn: String? = nil) {
        self.command = command
        self.arguments = arguments
        self.mrn = mrn
    }

    /// An MRN's shape: 1 to 32 ASCII letters, digits and hyphens, with at least one digit.
    /// A name ("Smith") has no digit, so `find Smith` never lands in the `mrn` field.
    public static func isMRN(_ word: String) -> Bool {
        (1...32).contains(word.utf8.count)
            && word.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
            && word.contains(where: \.isNumber)
    }

    /// `command`, then `args`, `mrn`, `chart` when present.
    func fields(chart: String?) -> [(key: String, value: CanonicalJSON.Value)] {
        var out: [(key: String, value: CanonicalJSON.Value)] = [("command", .string(command))]
        if let arguments { out.append(("args", .string(arguments))) }
        if let mrn { out.append(("mrn", .string(mrn))) }
        if let chart, mrn == nil, command != "open", command != "find" { out.append(("chart", .string(chart))) }
        return out
    }
}
