/// A program `ward exec` started in its pseudo-terminal, as the chain hears of it.
///
/// The path is what the site allowed, resolved on Ward's fixed PATH, never the user's.
/// `arguments` is nil unless the site records them (`record-arguments`): an argument may be a
/// database name, a file of patients, or a query.
public struct ProgramStart: Equatable, Sendable {
    /// The program's absolute path.
    public var path: String
    /// Its arguments, when the site records them; nil otherwise.
    public var arguments: [String]?
    /// Whether the site asks for the lines typed into it to be recorded (`record-input`); they
    /// hold patient data.
    public var recordsInput: Bool

    public init(path: String, arguments: [String]?, recordsInput: Bool) {
        self.path = path
        self.arguments = arguments
        self.recordsInput = recordsInput
    }
}

/// How a program `ward exec` ran ended.
public enum ProgramExit: Equatable, Sendable, CustomStringConvertible {
    /// It called exit with this status.
    case exited(Int32)
    /// A signal ended it (its number).
    case killed(by: Int32)

    /// What Ward exits with after it: the status, or 128 + the signal, as shells say.
    public var status: ExitStatus {
        switch self {
        case .exited(let code): ExitStatus(rawValue: code)
        case .killed(let signal): .killed(by: signal)
        }
    }

    public var description: String {
        switch self {
        case .exited(let code): "exit \(code)"
        case .killed(let signal): "signal \(signal)"
        }
    }
}
