import ArgumentParser
import Glibc
import WardCore

extension Ward.User {
    /// `ward user list`: names, roles, whose password (Ward's, or the system's through PAM),
    /// last sign-on, failed attempts since and, for a locked
    /// account, until when, in ISO 8601 UTC (`2026-11-23T10:42Z`) as `audit show` and the chart
    /// tables write times. Never a hash.
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
                [["NAME", "ROLE", "PASSWORD", "LAST SIGN-ON", "FAILED", "LOCKED UNTIL"]]
                + users.map { user in
                    let last = user.lastSignOn.map { record in
                        UTCMinute.format(record.time) + (record.tty.map { " from \($0)" } ?? "")
                    }
                    let locked =
                        user.isDisabled
                        ? "disabled" : user.isLocked(at: now) ? user.lockedUntil.map(UTCMinute.format) : nil
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

/// `2026-11-23T10:42Z`: a time to the minute in ISO 8601, in UTC, so a listing reads the same on
/// every machine and sorts as text.
enum UTCMinute {
    static func format(_ seconds: Int64) -> String {
        var time = time_t(seconds)
        var parts = tm()
        guard gmtime_r(&time, &parts) != nil else { return "\(seconds)s since 1970" }
        var buffer = [CChar](repeating: 0, count: 32)
        let n = strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%MZ", &parts)
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
