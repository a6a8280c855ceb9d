import Glibc

/// A system call that failed, with its name and `errno`'s text; the process ends with a failure
/// (a session that cannot set up its signal pipe does not start).
public struct SystemError: WardError, Equatable, Sendable {
    public let call: String
    public let code: Int32

    public init(_ call: String, code: Int32 = errno) {
        self.call = call
        self.code = code
    }

    public var description: String { "\(call): \(String(cString: strerror(code)))" }

    public var exitStatus: ExitStatus { .failure }
}
