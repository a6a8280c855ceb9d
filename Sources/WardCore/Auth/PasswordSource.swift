import Glibc

/// Where a password comes from when there is no terminal to ask on: a descriptor the caller
/// opened (`--password-fd 3 3<secret`) or a file only its owner can read (`--password-file`).
///
/// Never argv and never the environment: both are readable by other users through `/proc` and
/// `ps`, and both end up in shell history and crash reports.
public enum PasswordSource: Equatable, Sendable {
    /// Read once, to the first newline; the descriptor is closed after.
    case descriptor(Int32)
    /// Read afresh each time: after an idle lock a batch signs on again from it.
    case file(path: String)

    /// Whether a second sign-on can read the password again. A descriptor is a stream that was
    /// read and closed; a file is still there.
    public var canReadAgain: Bool {
        if case .file = self { return true }
        return false
    }

    /// How messages name it: `descriptor 3`, or the path.
    public var name: String {
        switch self {
        case .descriptor(let fd): "descriptor \(fd)"
        case .file(let path): path
        }
    }

    /// The password: the first line, without its newline (or `\r\n`).
    ///
    /// A file must be a regular file owned by the caller with no permission for group or others
    /// (0600 or 0400), opened without following a symbolic link; anything else is refused and
    /// the error says why and how to fix it.
    public func read() throws(AuthError) -> Password {
        switch self {
        case .descriptor(let fd):
            defer { close(fd) }
            return try Self.readLine(from: fd)
        case .file(let path):
            let fd: Int32
            do {
                // Non-blocking, so a FIFO is refused (not a regular file) instead of waiting for a writer.
                fd = try FileSecurity.openFile(atPath: path, flags: O_RDONLY | O_NONBLOCK, rule: .ownerOnly)
            } catch {
                throw .file(error)
            }
            defer { close(fd) }
            return try Self.readLine(from: fd)
        }
    }

    /// One line from `fd` (up to `\n`, a trailing `\r` dropped), read a byte at a time so
    /// nothing after the line is consumed. Nothing at all: `.noPassword`.
    ///
    /// The buffer is allocated once at the longest size, so no copy of a partial password is
    /// left behind by a growing array.
    public static func readLine(from fd: Int32) throws(AuthError) -> Password {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(CredentialStore.maximumPasswordLength + 1)
        var sawAny = false
        var byte: UInt8 = 0
        defer { byte = 0 }
        while true {
            let n = Glibc.read(fd, &byte, 1)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            sawAny = true
            if byte == UInt8(ascii: "\n") { break }
            if bytes.count >= CredentialStore.maximumPasswordLength {
                Password.zeroize(&bytes)
                throw .passwordTooLong(maximum: CredentialStore.maximumPasswordLength)
            }
            bytes.append(byte)
        }
        if !sawAny { throw .noPassword }
        if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
        return Password(bytes: bytes)
    }
}
