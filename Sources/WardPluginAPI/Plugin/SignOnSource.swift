/// Where a session signs on from, as the audit log's `sign-on` and `sign-on-failed` records say.
///
/// The front end knows it (a terminal and its device, a script and its name); the executable
/// reads `SSH_CONNECTION` once and hands it over, so no plugin reads the environment.
///
/// - Important: `SSH_CONNECTION` is what sshd set, or what the user's own shell set in its
///   place: a local user can write any value there. It tells an auditor where a session came
///   from when nobody lied about it, and is recorded as the environment said it.
public enum SignOnSource: Equatable, Sendable {
    /// A terminal on this machine; `tty` is its device (`/dev/pts/3`), nil when it has no name.
    case terminal(tty: String?)
    /// A terminal reached over SSH: the client's address and port from `SSH_CONNECTION`.
    case ssh(peer: String, port: Int, tty: String?)
    /// A script: its path as given to `--batch`, `-` for standard input.
    case batch(script: String)

    /// A terminal, or an SSH login when `sshConnection` (the value of `SSH_CONNECTION`:
    /// `CLIENT_ADDRESS CLIENT_PORT SERVER_ADDRESS SERVER_PORT`) is well formed. A malformed value
    /// is ignored rather than recorded: it holds nothing an auditor could rely on, and may hold
    /// anything at all.
    public init(tty: String?, sshConnection: String?) {
        let fields = sshConnection?.split(separator: " ", omittingEmptySubsequences: true) ?? []
        guard fields.count == 4, Self.isAddress(fields[0]), let port = Int(fields[1]), (1...65_535).contains(port)
        else {
            self = .terminal(tty: tty)
            return
        }
        self = .ssh(peer: String(fields[0]), port: port, tty: tty)
    }

    /// The terminal's device, nil for a script or a terminal without a name.
    public var tty: String? {
        switch self {
        case .terminal(let tty), .ssh(_, _, let tty): tty
        case .batch: nil
        }
    }

    /// `terminal`, `ssh` or `batch`, as the record's `via` field writes it.
    public var name: String {
        switch self {
        case .terminal: "terminal"
        case .ssh: "ssh"
        case .batch: "batch"
        }
    }

    /// An IPv4 or IPv6 address as sshd writes one: hex digits, dots and colons (and `%` with an
    /// interface name for a link-local IPv6 address), at most 64 characters.
    private static func isAddress(_ text: Substring) -> Bool {
        guard (2...64).contains(text.utf8.count), text.contains(where: { $0 == "." || $0 == ":" }) else {
            return false
        }
        let zoneStart = text.firstIndex(of: "%") ?? text.endIndex
        let address = text[..<zoneStart]
        let zone = text[zoneStart...].dropFirst()
        return address.allSatisfy { $0.isHexDigit || $0 == "." || $0 == ":" }
            && zone.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" || $0 == ".") }
    }
}
