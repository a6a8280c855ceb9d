import ArgumentParser
import AuditLog
import Glibc
import WardCore

extension Ward.Audit {
    /// `ward audit show [FILE]`: the records as a table, or as their JSON lines.
    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print audit records as a table.",
            discussion: """
                Times are UTC: '2026-11-22', '2026-11-22T09:30', or a duration ago ('2h', '30m'). \
                The filters combine: every one given must match. \
                The log is read with its rotated files (FILE.N ... FILE.1, then FILE), oldest first, \
                as 'ward audit verify' reads it. \
                Show does not check the chain; run 'ward audit verify' for that.
                """
        )

        enum Format: String, ExpressibleByArgument, CaseIterable {
            case text, json
        }

        @OptionGroup var global: GlobalOptions

        @Option(
            help: ArgumentHelp(
                "Only records of this user: signed on, or named by an administrative command.",
                valueName: "name"
            )
        )
        var user: String?

        @Option(
            help: ArgumentHelp(
                "Only records of what was done to this MRN (listed, opened, read, written, closed, break-glass).",
                valueName: "mrn"
            )
        )
        var mrn: String?

        @Option(help: ArgumentHelp("Only records from this time on (UTC), or this long ago ('2h').", valueName: "time"))
        var since: String?

        @Option(help: ArgumentHelp("Only records before this time (UTC), or this long ago.", valueName: "time"))
        var until: String?

        @Option(
            help: ArgumentHelp(
                "Only records that ended so: ok, denied (refused lines, sign-ons and unlocks too), failed or started.",
                valueName: "outcome"
            )
        )
        var outcome: RecordAccess.Outcome?

        @Option(
            help: ArgumentHelp(
                "Only records of this kind (sign-on, access, user-add, …); repeat it or separate kinds with commas.",
                valueName: "kind"
            )
        )
        var kind: [String] = []

        @Option(help: "Output: a table (text) or the records' own JSON lines, every field in order (json).")
        var format: Format = .text

        @Argument(
            help: ArgumentHelp(
                "The log to read, with its rotated files; default: the site's audit log, or audit.jsonl in the Ward home.",
                valueName: "file"
            )
        )
        var file: String?

        func validate() throws {
            for (name, value) in [("--since", since), ("--until", until)] {
                if let value, Self.time(value) == nil {
                    throw ValidationError(
                        "\(name) '\(value)' is not a time; write '2026-11-22', '2026-11-22T09:30' or a duration ago such as '2h'."
                    )
                }
            }
            _ = try kinds()
        }

        /// The `--kind` values as kinds, nil when none was given.
        private func kinds() throws(ValidationError) -> Set<AuditEntry.Kind>? {
            guard !kind.isEmpty else { return nil }
            do throws(AuditFilter.UnknownKind) {
                return try AuditFilter.kinds(kind)
            } catch {
                let known = AuditEntry.Kind.allCases.map(\.rawValue).joined(separator: ", ")
                throw ValidationError("--kind '\(error.value)' is not a record kind; choose from \(known).")
            }
        }

        func run() throws {
            let path = try Ward.Audit.logPath(file: file, global: global)
            let filter = AuditFilter(
                user: user,
                mrn: mrn,
                since: since.flatMap(Self.time),
                until: until.flatMap(Self.time),
                outcomes: outcome.map { [$0] },
                kinds: try kinds()
            )
            var rows: [AuditRecord] = []
            // An auditor asks who opened a chart over months, not since the last rotation.
            let series = AuditSeries(log: path)
            for warning in series.warnings { StandardError.report(warning) }
            for file in series.files {
                // Between logrotate's rename and the next record, the current file is not there yet.
                if file == path, series.files.count > 1, access(file, F_OK) != 0 { continue }
                try FileSecurity.checkIfPresent(atPath: file)
                let log = try AuditLogFile.read(path: file)
                let chosen = log.records.filter { filter.matches($0.record) }
                switch format {
                case .json:
                    // The log's own compact JSON lines, byte for byte: every field, in the order
                    // written, the hash last. Only what could drive the terminal changes: C0, DEL,
                    // C1 and bidi controls become \uXXXX, which any JSON reader reads as the same
                    // character, so the fields parse to what was written.
                    for item in chosen { print(Sanitizer.json(String(decoding: item.line, as: UTF8.self))) }
                case .text:
                    rows += chosen.map(\.record)
                }
                if log.unreadable > 0 {
                    StandardError.report(
                        "\(file): \(log.unreadable) line\(log.unreadable == 1 ? " is" : "s are") not records; run 'ward audit verify'."
                    )
                }
            }
            // AuditTable sanitized every cell before measuring it; one table, so the columns
            // line up across the files.
            if format == .text { print(AuditTable.render(rows), terminator: "") }
        }

        /// Milliseconds since the epoch for a UTC time or a duration ago.
        static func time(_ text: String) -> Int64? {
            if let ms = UTCTimestamp.parse(text) { return ms }
            if let ago = DurationText.parse(text) {
                return UTCTimestamp.nowMilliseconds() - ago.nanoseconds / 1_000_000
            }
            return nil
        }
    }
}

extension RecordAccess.Outcome: ExpressibleByArgument {}
