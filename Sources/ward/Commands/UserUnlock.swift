import ArgumentParser
import AuditLog
import WardCore

extension Ward.User {
    /// `ward user unlock NAME`: ends a lockout at once, before `lockout` has run out, and enables
    /// a user `ward user disable` disabled.
    ///
    /// For the user who was locked out by someone else's guesses (or their own typos) and has
    /// shown who they are some other way. Asks no Ward password, as the other `ward user`
    /// commands: whoever can write the home can already rewrite the store. The failures since the
    /// last sign-on are kept, so the user is still told of them when they next sign on.
    struct Unlock: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "unlock",
            abstract: "Unlock an account locked after too many failed sign-on attempts."
        )

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The user to unlock.")
        var name: String

        func run() throws {
            let (home, store) = try Ward.User.open(global)
            guard UserRecord.isValidName(name) else { throw AuthError.invalidUserName(name) }
            let audit = try AdministrativeAudit.open(global: global, home: home)
            let wasLocked = try audit.recording(.unlockAccount, target: name) {
                let user = try store.user(named: name)
                let wasLocked = user?.isDisabled == true || user?.isLocked(at: SignOnSummary.currentTime()) == true
                try store.clearLock(name: name)
                return wasLocked
            }
            printText(
                wasLocked ? "Unlocked \(name)." : "\(name) was not locked; the count of failures starts again."
            )
        }
    }
}
