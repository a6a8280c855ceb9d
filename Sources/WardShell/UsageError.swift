/// A shell line that does not fit its command's syntax, or a value the command cannot take.
///
/// The text reads as swift-argument-parser's did (`Error: …`, then the usage, then where to read
/// more), so the messages users knew stay the same.
///
/// Not a `WardError`: it never ends the process. The shell shows it and waits for the next line;
/// a batch reports it as the line's failure (`--on-error` decides what follows).
///
/// - Important: A value quoted here is what the user typed on this line (a word, an option);
///   never a patient field from the records.
public struct UsageError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What is wrong.
    public enum Problem: Equatable, Sendable {
        /// A required operand is missing: `open` without an MRN.
        case missingArgument(String)
        /// A word the command does not take: `whoami alice`.
        case unexpectedArgument(String)
        /// An option the command does not know: `show --everything`.
        case unknownOption(String)
        /// An option that needs a value came last: `open M1 --reason`.
        case missingValue(String)
        /// A flag given a value: `show --all=yes`.
        case unexpectedValue(String)
        /// A value outside the allowed ones: `show nonsense`.
        case invalidValue(String, for: String, allowed: [String])
        /// The command's own rule, as a sentence that says what to do.
        case invalid(String)
    }

    public let problem: Problem
    /// The command's name, for "See 'help NAME'".
    public let command: String
    /// The command's usage line.
    public let usage: String

    public init(_ problem: Problem, syntax: CommandSyntax) {
        self.problem = problem
        self.command = syntax.name
        self.usage = syntax.usage
    }

    public var description: String {
        "Error: \(summary)\nUsage: \(usage)\n  See 'help \(command)' for more information."
    }

    /// The first line, without `Error: `.
    public var summary: String {
        switch problem {
        case .missingArgument(let name): "Missing expected argument '\(name)'"
        case .unexpectedArgument(let word): "Unexpected argument '\(word)'"
        case .unknownOption(let word): "Unknown option '\(word)'"
        case .missingValue(let option): "Missing value for '\(option)'"
        case .unexpectedValue(let option): "'\(option)' takes no value"
        case .invalidValue(let value, let name, let allowed):
            "The value '\(value)' is invalid for '\(name)'. Please provide one of "
                + allowed.map { "'\($0)'" }.joined(separator: ", ") + "."
        case .invalid(let message): message
        }
    }
}
