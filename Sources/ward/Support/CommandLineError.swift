import AuditLog
import Glibc
import WardCore

/// What ends `ward` that no library's error says: the command line's own failures, and a command
/// that has said everything already and only has its status left.
///
/// A mistake in the options is a `ValidationError` instead (`Ward.RecordsShell.validate()`): the
/// parser adds the command's usage. These are not about the options, so a usage block would
/// mislead.
enum CommandLineError: WardError, Equatable {
    /// `ward shell` with standard output that is not a terminal: it needs one to draw on.
    case noTerminal
    /// The Ward home has no credential store yet, so nobody can sign on.
    case noUsers(home: String)
    /// `--batch FILE` names a file that cannot be opened; `errno` says why.
    case cannotOpenScript(path: String, errno: Int32)
    /// `--batch FILE` names a directory.
    case scriptIsDirectory(path: String)
    /// `ward audit verify` found a record that was changed, removed, inserted or reordered.
    case auditLogFailsVerification(path: String, problem: AuditProblem)
    /// Ctrl-C at a password prompt: nothing was changed, and the shell's own status says so.
    case interrupted
    /// The command has reported what went wrong as it happened (a session's last notice,
    /// `ward import`'s failed bundles) and ends with this status, saying nothing more.
    case reported(ExitStatus)

    var description: String {
        switch self {
        case .noTerminal:
            "standard output is not a terminal. The shell needs one; to run commands from a script, use --batch FILE."
        case .noUsers(let home):
            "no users in \(home) yet. Add one with 'ward user add NAME', or try 'ward demo'."
        case .cannotOpenScript(let path, let code):
            "\(path): cannot open the script: \(String(cString: strerror(code)))."
        case .scriptIsDirectory(let path):
            "\(path) is a directory; give the script's file."
        case .auditLogFailsVerification(let path, let problem):
            "\(path):\(problem.line): \(problem.kind.rawValue): \(problem.detail)."
        case .interrupted, .reported:
            ""
        }
    }

    var exitStatus: ExitStatus {
        switch self {
        case .noTerminal: .usage
        case .noUsers, .cannotOpenScript, .scriptIsDirectory: .noInput
        case .auditLogFailsVerification: .dataError
        case .interrupted: .killed(by: SIGINT)
        case .reported(let status): status
        }
    }
}
