import ArgumentParser
import WardCore

extension Ward.User {
    /// `ward user list`: names, roles, last sign-on and failed attempts since. Never a hash.
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List the users, their roles and their last sign-on."
        )

        @OptionGroup var global: GlobalOptions

        func run() throws {
            try Ward.User.reportingErrors {
                let users = try Ward.User.store(global).users()
                let rows =
                    [["NAME", "ROLE", "LAST SIGN-ON", "FAILED"]]
                    + users.map { user in
                        let last = user.lastSignOn.map { record in
                            record.localTimeDescription + (record.tty.map { " from \($0)" } ?? "")
                        }
                        return [user.name, user.role.rawValue, last ?? "never", String(user.failedAttempts)]
                    }
                    // Sanitized before measuring: an escape is wider than the control it shows.
                    .map { $0.map(Sanitizer.line) }
                let widths = (0..<4).map { column in rows.map { $0[column].count }.max() ?? 0 }
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
}
