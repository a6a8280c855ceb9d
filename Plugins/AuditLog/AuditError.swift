import Glibc
import WardPluginAPI
import WardSupport

/// Why the audit log could not be written or a key could not be used.
///
/// A write error fails closed: the line is denied and the session locks (`AuditLog`).
public enum AuditError: WardError, Equatable, Sendable {
    /// The log or its head file is missing, unsafe (a symbolic link, another owner, writable by
    /// others) or could not be opened.
    case file(FileSecurityError)
    /// The key file is missing, unsafe or unreadable.
    case keyFile(FileSecurityError)
    /// The key file holds fewer than `AuditKey.minimumBytes` bytes.
    case weakKey(path: String, bytes: Int)
    /// The log has no owner write permission: someone froze it, and Ward will not write around that.
    case readOnly(path: String)
    /// A system call on the log failed (`flock`, `write`, `fdatasync`, `read`).
    case io(path: String, operation: String, errno: Int32)
    /// The log has lines but none at its end is a record to continue the chain from.
    case noLastRecord(path: String)
    /// The log and its head file disagree: records were removed from the end, or the last changed.
    case headMismatch(path: String, detail: String)

    public var description: String {
        switch self {
        case .file(let error):
            "audit log: \(error)"
        case .keyFile(let error):
            "audit key-file: \(error)"
        case .weakKey(let path, let bytes):
            "\(path): the audit key has \(bytes) bytes; use at least \(AuditKey.minimumBytes) "
                + "(for example 'head -c 32 /dev/urandom > \(path); chmod 600 \(path)')."
        case .readOnly(let path):
            "\(path) is read-only; Ward will not write around that. Restore its mode with 'chmod 600 \(path)'."
        case .io(let path, let operation, let code):
            "\(path): cannot \(operation): \(String(cString: strerror(code)))."
        case .noLastRecord(let path):
            "\(path) ends in lines that are not audit records; run 'ward audit verify \(path)' and move the file aside."
        case .headMismatch(let path, let detail):
            "\(path): \(detail); run 'ward audit verify \(path)'."
        }
    }

    /// A data error for a log that fails its checks, an I/O error for a failed system call, a
    /// configuration error for an unsafe file or key.
    public var exitStatus: ExitStatus {
        switch self {
        case .file(let error), .keyFile(let error): error.exitStatus
        case .weakKey: .configuration
        case .readOnly, .io: .ioError
        case .noLastRecord, .headMismatch: .dataError
        }
    }
}
