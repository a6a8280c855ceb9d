import ArgumentParser
import WardCore

extension Ward {
    /// `ward sessions`: the live sessions of the home, from its registry (`SessionRegistry`):
    /// who is signed on where, since when, and whether the session is locked.
    ///
    /// For the administrator who must cut off a departing user (`ward lock`) and the clinician
    /// who forgot a terminal. Lists no patient: an entry names the user, the process and the
    /// terminal, never what is open. Entries of sessions that are gone (killed without a chance
    /// to remove theirs) are not listed, and are removed.
    struct Sessions: ParsableCommand {
        static let configuration = CommandConfiguration(
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
            let entries = SessionRegistry(home: home).entries()
            switch format {
            case .json:
                // Each object is the entry file's own JSON; its controls shown, as audit show does.
                for entry in entries { print(Sanitizer.json(entry.json())) }
            case .text:
                print(Self.table(entries), terminator: "")
            }
        }

        /// The entries as a table with a header, every cell sanitized before it is measured;
        /// one line saying so when there is none.
        static func table(_ entries: [SessionEntry]) -> String {
            guard !entries.isEmpty else { return "No live sessions.\n" }
            let rows =
                [["ID", "USER", "ROLE", "STATE", "PID", "TTY", "PEER", "STARTED"]]
                + entries.map { entry in
                    [
                        entry.id, entry.user, entry.role, entry.state.rawValue, String(entry.pid), entry.tty ?? "-",
                        entry.peer ?? "-", entry.started,
                    ]
                }
                .map { $0.map(Sanitizer.line) }
            let widths = (0..<8).map { column in rows.map { $0[column].count }.max() ?? 0 }
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
