import Glibc

/// A system call that failed, with its name and `errno`'s text.
public struct SystemError: Error, Equatable, Sendable, CustomStringConvertible {
    public let call: String
    public let code: Int32

    public init(_ call: String, code: Int32 = errno) {
        self.call = call
        self.code = code
    }

    public var description: String { "\(call): \(String(cString: strerror(code)))" }
}
