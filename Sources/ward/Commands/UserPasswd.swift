import ArgumentParser
import AuditLog
import WardCore

extension Ward.User {
    /// `ward user passwd NAME`: a new password (asked twice, or one line of standard input);
    /// a fresh salt and the current scrypt parameters; the failure count starts again. A user
    /// added with `--pam` has no Ward password: refused, naming passwd(1).
    struct Passwd: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "passwd",
            abstract: "Change a user's password."
        )

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The user whose password changes.")
        var name: String

        @OptionGroup var source: PasswordSourceOptions

        func run() throws {
            let (home, store) = try Ward.User.open(global)
            let audit = try AdministrativeAudit.open(global: global, home: home)
            try audit.recording(.passwordChange, target: name) {
                guard UserRecord.isValidName(name), let user = try store.user(named: name) else {
                    throw AuthError.noSuchUser(name)
                }
                // Refused before asking: Ward keeps no password for this user to change.
                if user.usesSystemPassword { throw AuthError.systemPassword(user: name) }
                let password = try PasswordInput.readNew(
                    fromStandardInput: source.passwordStdin,
                    prompt: "New password for \(name): "
                )
                try store.setPassword(name: name, password: password)
            }
            printText("Changed the password of \(name).")
        }
    }
}
