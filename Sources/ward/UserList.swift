import ArgumentParser
import WardCore

extension Ward.User {
    /// `ward user list`: names, roles, last sign-on, failed attempts since and, for a locked
    /// account, until when (local time). Never a hash.
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List the users, their roles, their last sign-on and any lockout."
        )

        @OptionGroup var global: GlobalOptions

        func run() throws {
            let users = try Ward.User.store(global).users()
            let now = SignOnSummary.currentTime()
            let rows =
                [["NAME", "ROLE", "LAST SIGN-ON", "FAILED", "LOCKED UNTIL"]]
                + users.map { user in
                    let last = user.lastSignOn.map { record in
                        record.localTimeDescription + (record.tty.map { " from \($0)" } ?? "")
                    }
                    let locked = user.isLocked(at: now) ? user.lockedUntil.map(SignOnSummary.localTime) : nil
                    return [
                        user.name, user.role.rawValue, last ?? "never", String(user.failedAttempts), locked ?? "-",
                    ]
                }
                // Sanitized before measuring: an escape is wider than the control it shows.
                .map { $0.map(Sanitizer.line) }
            let widths = (0..<5).map { column in rows.map { $0[column].count }.max() ?? 0 }
            for row in rows {
                let padded = row.enumerated().map { column, text in
                    column == row.count - 1
                        ? text : text + String(repeating: " ", count: widths[column] - text.count)
                }
                print(padded.joined(separator: "  "))  // cells sanitized above
            }
        }
    }
}
