import ArgumentParser
import BuiltInPlugins
import WardCore

extension Ward.User {
    /// `ward user list`: names, roles, whose password (Ward's, or the system's through PAM),
    /// last sign-on, failed attempts since and, for a locked
    /// account, until when, in the site's zone with its offset (`2026-11-23T02:42-08:00`) as the
    /// chart tables write times. Never a hash.
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List the users, their roles, their last sign-on and any lockout."
        )

        @OptionGroup var global: GlobalOptions

        func run() throws {
            LocalTime.show(in: try SitePolicy.load(siteOption: global.site, plugins: pluginRegistry).records.shownZone)
            let users = try Ward.User.store(global).users()
            let now = SignOnSummary.currentTime()
            let rows =
                [["NAME", "ROLE", "PASSWORD", "LAST SIGN-ON", "FAILED", "LOCKED UNTIL"]]
                + users.map { user in
                    let last = user.lastSignOn.map { record in
                        LocalTime.minute(record.time) + (record.tty.map { " from \($0)" } ?? "")
                    }
                    let locked =
                        user.isDisabled
                        ? "disabled" : user.isLocked(at: now) ? user.lockedUntil.map { LocalTime.minute($0) } : nil
                    return [
                        user.name, user.role.rawValue, user.usesSystemPassword ? "system (pam)" : "ward",
                        last ?? "never", String(user.failedAttempts), locked ?? "-",
                    ]
                }
                // Sanitized before measuring: an escape is wider than the control it shows.
                .map { $0.map(Sanitizer.line) }
            let widths = (0..<6).map { column in rows.map { $0[column].count }.max() ?? 0 }
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
