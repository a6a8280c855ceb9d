import ArgumentParser
import AuditLog
import WardCore

extension Ward.User {
    /// `ward user remove NAME`: the user can no longer sign on or unlock, and each of their live
    /// sessions is signed off within a second (`UserSessions`). Their audit records stay.
    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove",
            abstract: "Remove a user; they can no longer sign on."
        )

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The user to remove.")
        var name: String

        func run() throws {
            let (home, store) = try Ward.User.open(global)
            let audit = try AdministrativeAudit.open(global: global, home: home)
            let signedOff = try audit.recording(.userRemove, target: name) {
                try store.remove(name: name)
                return try UserSessions.signOff(
                    user: name,
                    registry: sessionDirectory(global: global, home: home),
                    by: audit.unixUser
                )
            }
            printText("Removed \(name)." + UserSessions.summary(signedOff))
        }
    }
}
