/// An error Ward reports to the person at the terminal and ends with: one sentence (or a few
/// lines) that names the file, the line or the value and says what to do, and the exit status.
///
/// Each area keeps its own enum (`ConfigError`, `AuthError`, `StoreError`, `AuditError`), as
/// swift-nio's `ChannelError` does; this protocol is what they share, so the executable has one
/// `catch` that prints `ward: <description>` to standard error and exits with `exitStatus`.
///
/// - Important: `description` never carries a patient field or a secret: it ends up on a
///   screen others may see, and in scripts' logs.
public protocol WardError: Error, CustomStringConvertible {
    /// The sysexits(3) status the process ends with.
    var exitStatus: ExitStatus { get }
}
