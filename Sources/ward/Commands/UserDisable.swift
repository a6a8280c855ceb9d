import ArgumentParser
import AuditLog
import WardCore

extension Ward.User {
    /// `ward user disable NAME`: the user can no longer sign on or unlock, and each of their
    /// live sessions is signed off within a second (`UserSessions`). Unlike `remove`, the user
    /// stays in the store, with their role and password: `ward user unlock NAME` enables them.
    ///
    /// For an account under review, or a clinician on leave: closed now, everywhere, with
    /// nothing to re-create later.
    struct Disable: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "disable",
            abstract: "Disable a user: no sign-on until 'ward user unlock'; their live sessions are signed off."
        )

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The user to disable.")
        var name: String

        func run() throws {
            let (home, store) = try Ward.User.open(global)
            guard UserRecord.isValidName(name) else { throw AuthError.invalidUserName(name) }
            let audit = try AdministrativeAudit.open(global: global, home: home)
            let (wasEnabled, signedOff) = try audit.recording(.userDisable, target: name) {
                let wasEnabled = try store.disable(name: name)
                return (
                    wasEnabled,
                    try UserSessions.signOff(
                        user: name,
                        registry: sessionDirectory(global: global, home: home),
                        by: audit.unixUser
                    )
                )
            }
            printText(
                (wasEnabled ? "Disabled \(name)." : "\(name) was disabled already.") + UserSessions.summary(signedOff)
            )
        }
    }
}
