/// `[auth]`: who checks the password a user types at sign-on, at the lock screen and in a batch.
///
/// ```toml
/// [auth]
/// source = "pam"      # "ward" (the default): Ward's own scrypt store
/// service = "ward"    # the PAM service, /etc/pam.d/ward; only with source = "pam"
/// ```
///
/// Either way the user must be in Ward's user list, which gives their role, and the failed-attempt
/// rules (`max-failed-attempts`, `lockout`) are Ward's: the source only says whether a password is
/// right. A site, not a user, chooses: a user file cannot name a source.
public enum AuthSource: Equatable, Sendable, CustomStringConvertible {
    /// The scrypt hashes in the home's credential store (`ward user add`, `ward user passwd`).
    case ward
    /// The system's password, through PAM's `pam_authenticate` and `pam_acct_mgmt` for `service`.
    case pam(service: String)

    /// The service a site gets when it says `source = "pam"` and names none.
    public static let defaultService = "ward"

    /// `ward`, or `pam (service "ward")`: for `ward config check` and `ward user list`.
    public var description: String {
        switch self {
        case .ward: "ward"
        case .pam(let service): "pam (service \"\(service)\")"
        }
    }

    /// `[auth]` as a site file would write it, for `ward config check`.
    public var summary: String {
        switch self {
        case .ward: "\n[auth]\nsource = \"ward\"\n"
        case .pam(let service): "\n[auth]\nsource = \"pam\"\nservice = \"\(service)\"\n"
        }
    }

    /// A PAM service name is a file name in /etc/pam.d: letters, digits, `.`, `_`, `-`, not
    /// starting with `.`, so it can name no other directory.
    static func isValidService(_ name: String) -> Bool {
        guard (1...64).contains(name.utf8.count), !name.hasPrefix(".") else { return false }
        return name.utf8.allSatisfy { c in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(c) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(c)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(c) || c == UInt8(ascii: ".")
                || c == UInt8(ascii: "_") || c == UInt8(ascii: "-")
        }
    }
}

extension AuthSource {
    /// Reads `[auth]` from the site file; problems go to `errors`, each naming FILE:LINE.
    static func read(_ document: ConfigDocument, errors: inout [ConfigError]) -> AuthSource {
        let file = document.file
        guard let table = document.settings(at: ["auth"], errors: &errors) else {
            errors.append(
                .wrongType(
                    file: file,
                    line: document.line(ofKey: "auth", in: []),
                    key: "auth",
                    expected: "a table ([auth])"
                )
            )
            return .ward
        }
        var source = AuthSource.ward
        do {
            if try table.choice("source", from: ["ward", "pam"]) == "pam" {
                source = .pam(service: defaultService)
            }
        } catch { errors += (error as? ConfigError)?.all ?? [] }
        do {
            if let service = try table.string("service") {
                if !isValidService(service) {
                    errors.append(
                        .outOfRange(
                            file: file,
                            line: table.line(of: "service"),
                            key: "service",
                            value: "\"\(service)\"",
                            allowed: "a PAM service name: a file in /etc/pam.d such as \"ward\""
                        )
                    )
                } else if case .pam = source {
                    source = .pam(service: service)
                } else {
                    errors.append(
                        .conflict(
                            file: file,
                            line: table.line(of: "service"),
                            message: "'service' names a PAM service, which is used only with source = \"pam\"; "
                                + "add source = \"pam\" to [auth], or remove 'service'."
                        )
                    )
                }
            }
        } catch { errors += (error as? ConfigError)?.all ?? [] }
        errors += table.unknownKeyErrors
        return source
    }
}
