/// A command that could not do what was asked. The message is for the user at the prompt.
///
/// - Important: Never a patient field in the message beyond the MRN the user typed.
public struct ShellError: Error, Equatable, Sendable, CustomStringConvertible {
    public let message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }
}
