import ArgumentParser
import AuditLog
import BuiltInPlugins
import WardCore

extension Ward.User {
    /// `ward user add NAME --role ROLE`: a new user, with a password asked twice (or one line of
    /// standard input). Creates the home and the store when they do not exist yet.
    ///
    /// With `--pam` no password is asked or kept: the user signs on with the system's password,
    /// which PAM checks where the site says `[auth] source = "pam"`. The user must still be added
    /// here: Ward's list, not the system's, says who may see records and in which role.
    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Add a user who may sign on."
        )

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The new user's sign-on name: lowercase letters, digits, '_', '-', '.'.")
        var name: String

        @Option(
            help: ArgumentHelp("What the user may do: clinician, clerk or auditor.", valueName: "role"),
            completion: .list(Role.allCases.map(\.rawValue))
        )
        var role: String

        @OptionGroup var source: PasswordSourceOptions

        @Flag(
            name: .customLong("pam"),
            help: ArgumentHelp(
                "Keep no Ward password: the user signs on with the system's, checked by PAM.",
                discussion: "For a site whose site file says [auth] source = \"pam\"."
            )
        )
        var systemPassword = false

        func validate() throws {
            if systemPassword && source.passwordStdin {
                throw ValidationError(
                    "--pam keeps no Ward password, so there is none to read; leave out --password-stdin."
                )
            }
            guard UserRecord.isValidName(name) else {
                throw ValidationError(AuthError.invalidUserName(name).description)
            }
            guard Role(rawValue: role) != nil else { throw ValidationError(AuthError.unknownRole(role).description) }
        }

        func run() throws {
            let (home, store) = try Ward.User.open(global, create: true)
            let audit = try AdministrativeAudit.open(global: global, home: home)
            let role = Role(rawValue: role)!
            try audit.recording(.userAdd, target: name, role: role) {
                // Refuse before asking for a password that would be thrown away.
                if try Ward.User.existing(name, in: store) != nil { throw AuthError.userExists(name) }
                if systemPassword { return try store.addSystemUser(name: name, role: role) }
                let password = try PasswordInput.readNew(
                    fromStandardInput: source.passwordStdin,
                    prompt: "New password for \(name): "
                )
                try store.add(name: name, role: role, password: password)
            }
            printText(
                systemPassword
                    ? "Added \(name) (\(role)), who signs on with the system's password (PAM)."
                    : "Added \(name) (\(role))."
            )
            // Not an error: the site file may be changed next. But a user the site's source never
            // asks about cannot sign on, and the administrator should hear it now.
            let checker = try SitePolicy.load(siteOption: global.site, plugins: pluginRegistry).auth
            switch (systemPassword, checker) {
            case (true, .ward):
                StandardError.report(
                    "note: the site checks passwords with Ward's own store ([auth] source = \"ward\"): "
                        + "\(name) cannot sign on until it says source = \"pam\"."
                )
            case (false, .pam):
                StandardError.report(
                    "note: the site checks passwords with PAM ([auth] source = \"pam\"): "
                        + "the Ward password just set is not used; \(name) signs on with the system's."
                )
            default:
                break
            }
        }
    }
}
