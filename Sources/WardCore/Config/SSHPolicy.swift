/// The site's `[ssh]` table: what a command given to `ssh HOST COMMAND` may be, when Ward is
/// the account's way in (sshd's `ForceCommand`, or its login shell).
///
/// ```toml
/// [ssh]
/// allow-commands = ["batch"]   # `ward --batch -` and `ward -c CMD`, the password on stdin
/// ```
///
/// Without the table, or with an empty list, every such command is refused (exit 77): a site
/// that puts Ward in front of its records has not thereby let anyone run anything else, and
/// sshd would otherwise hand `ssh HOST 'cat /etc/passwd'` to whatever starts the session.
public struct SSHPolicy: Equatable, Sendable {
    /// The kinds of invocation a site may let through.
    public enum CommandKind: String, Equatable, Sendable, CaseIterable {
        /// `ward --batch - ...` or `ward -c COMMAND ...` with `--user` and `--password-fd 0`:
        /// the records shell's own script mode, under the same chain and audit log.
        case batch
    }

    /// The site file, for messages.
    public var file: String
    /// The line of `[ssh]`, 0 when there is none.
    public var line: Int
    /// What `allow-commands` lets through.
    public var allowedCommands: [CommandKind]

    /// No `[ssh]` table: every command given over SSH is refused.
    public static func none(file: String) -> SSHPolicy {
        SSHPolicy(file: file, line: 0, allowedCommands: [])
    }

    /// Whether the site lets `kind` through.
    public func allows(_ kind: CommandKind) -> Bool { allowedCommands.contains(kind) }

    static func read(_ document: ConfigDocument, errors: inout [ConfigError]) -> SSHPolicy {
        let file = document.file
        var policy = SSHPolicy.none(file: file)
        policy.line = document.line(ofTable: ["ssh"])
        guard let table = document.settings(at: ["ssh"], errors: &errors) else {
            errors.append(.wrongType(file: file, line: policy.line, key: "ssh", expected: "a table ([ssh])"))
            return policy
        }
        do {
            for name in try table.strings("allow-commands") ?? [] {
                guard let kind = CommandKind(rawValue: name) else {
                    errors.append(
                        .outOfRange(
                            file: file,
                            line: table.line(of: "allow-commands"),
                            key: "allow-commands",
                            value: "\"\(name)\"",
                            allowed: CommandKind.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
                        )
                    )
                    continue
                }
                if !policy.allowedCommands.contains(kind) { policy.allowedCommands.append(kind) }
            }
        } catch { errors += (error as? ConfigError)?.all ?? [] }
        errors += table.unknownKeyErrors
        return policy
    }

    /// `[ssh]` as a site file would write it, for `ward config check`.
    public var summary: String {
        let list = allowedCommands.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
        let origin = line > 0 ? "    # line \(line)\n" : "    # built-in default: every command over SSH is refused\n"
        return "\n[ssh]" + origin + "allow-commands = [\(list)]\n"
    }
}
