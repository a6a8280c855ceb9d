/// A program `ward exec` started in its pseudo-terminal, as the chain hears of it.
///
/// The path is what the site allowed, resolved on Ward's fixed PATH, never the user's.
public struct ProgramStart: Equatable, Sendable {
    /// The program's absolute path.
    public var path: String
    /// Its arguments after the path, the site's (`args`) then the user's, with a password
    /// written into one (`postgresql://u:secret@db`, `password=secret`) masked.
    public var arguments: [String]?
    /// Whether the site asks for the lines typed into it to be recorded (`record-input`); they
    /// hold patient data.
    public var recordsInput: Bool
    /// The sandbox it runs in; nil when the site turned it off (`sandbox = "off"`).
    public var sandbox: ProgramSandbox?

    public init(path: String, arguments: [String]?, recordsInput: Bool, sandbox: ProgramSandbox? = nil) {
        self.path = path
        self.arguments = arguments
        self.recordsInput = recordsInput
        self.sandbox = sandbox
    }
}

/// What the kernel lets a program `ward exec` runs do: an auditor reads from it what the program
/// could have reached.
public struct ProgramSandbox: Equatable, Sendable {
    /// The Landlock ABI version the file rules were made with.
    public var landlockABI: Int
    /// Whether every exec waits for Ward's answer (seccomp); then only `mayRun` may start.
    public var seccomp: Bool
    /// What the site let it read beyond the system's directories (`read`).
    public var read: [String]
    /// What the site let it write (`write`).
    public var write: [String]
    /// The programs the site let it start (`may-run`).
    public var mayRun: [String]

    public init(landlockABI: Int, seccomp: Bool, read: [String], write: [String], mayRun: [String]) {
        self.landlockABI = landlockABI
        self.seccomp = seccomp
        self.read = read
        self.write = write
        self.mayRun = mayRun
    }
}

/// A program `ward exec` runs, or one it started, tried to start another that the site did not
/// allow (`may-run`): the exec failed with EPERM.
public struct ProgramExecAttempt: Equatable, Sendable {
    /// The path it named, as it named it (sanitized where it is shown).
    public var path: String
    /// The process that tried.
    public var process: Int32
    /// Why it was refused, in a few words: "not in may-run", "several threads".
    public var reason: String

    public init(path: String, process: Int32, reason: String) {
        self.path = path
        self.process = process
        self.reason = reason
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
