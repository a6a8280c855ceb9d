import ArgumentParser
import BuiltInPlugins
import WardCore

extension Ward {
    /// `ward sessions`: the live sessions of the home, from its registry (`SessionRegistry`), or
    /// of every host of the site when its records are on PostgreSQL (`SessionDirectory`): who is
    /// signed on where, since when, and whether the session is locked.
    ///
    /// For the administrator who must cut off a departing user (`ward lock`) and the clinician
    /// who forgot a terminal. Lists no patient: an entry names the user, the process and the
    /// terminal, never what is open. Entries of sessions that are gone (killed without a chance
    /// to remove theirs) are not listed, and are removed.
    struct Sessions: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sessions",
            abstract: "List the live sessions: user, role, state (signed-on or locked), terminal, SSH peer, start."
        )

        enum Format: String, ExpressibleByArgument, CaseIterable {
            case text, json
        }

        @OptionGroup var global: GlobalOptions

        @Option(help: "Output: a table (text), or one JSON object per session (json).")
        var format: Format = .text

        func run() throws {
            let (home, _) = try Ward.User.open(global)
            LocalTime.show(in: try SitePolicy.load(siteOption: global.site, plugins: pluginRegistry).records.shownZone)
            let entries = try sessionDirectory(global: global, home: home).entries()
            switch format {
            case .json:
                // Each object is the entry file's own JSON; its controls shown, as audit show does.
                for entry in entries { print(Sanitizer.json(entry.json())) }
            case .text:
                print(Self.table(entries), terminator: "")
            }
        }

        /// `started` (`2026-11-25T17:04:05Z`, as the entry keeps it) to the minute in the site's
        /// zone with its offset, as `user list` shows times; as kept when it is not that form.
        static func shown(started: String) -> String {
            let text = Array(started.utf8)
            guard text.count == 20, text[10] == UInt8(ascii: "T"), text[19] == UInt8(ascii: "Z"),
                let days = CivilDate.days(parsing: started.prefix(10)),
                let hour = Int(started.dropFirst(11).prefix(2)), let minute = Int(started.dropFirst(14).prefix(2)),
                let second = Int(started.dropFirst(17).prefix(2))
            else { return started }
            return LocalTime.minute(Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second))
        }

        /// The entries as a table with a header, every cell sanitized before it is measured;
        /// one line saying so when there is none. A HOST column comes first when the list is the
        /// site's (records on PostgreSQL), whose sessions run on several hosts.
        static func table(_ entries: [SessionEntry]) -> String {
            guard !entries.isEmpty else { return "No live sessions.\n" }
            let hosts = entries.contains { $0.host != nil }
            let rows =
                [(hosts ? ["HOST"] : []) + ["ID", "USER", "ROLE", "STATE", "PID", "TTY", "PEER", "STARTED"]]
                + entries.map { entry in
                    (hosts ? [entry.host ?? "-"] : [])
                        + [
                            entry.id, entry.user, entry.role, entry.state.rawValue, String(entry.pid), entry.tty ?? "-",
                            entry.peer ?? "-", Self.shown(started: entry.started),
                        ]
                }
                .map { $0.map(Sanitizer.line) }
            let widths = (0..<rows[0].count).map { column in rows.map { $0[column].count }.max() ?? 0 }
            return rows.map { row in
                row.enumerated().map { column, text in
                    column == row.count - 1 ? text : text + String(repeating: " ", count: widths[column] - text.count)
                }
                .joined(separator: "  ") + "\n"
            }
            .joined()
        }
    }
}
