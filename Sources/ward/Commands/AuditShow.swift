import ArgumentParser
import AuditLog
import Glibc
import WardCore
import WardShell

extension Ward.Audit {
    /// `ward audit show [FILE]`: the records that answer an auditor's question, as a table, the
    /// records' own JSON lines, CSV, or counts.
    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Print audit records as a table, JSON lines or CSV, or count them.",
            discussion: """
                Each filter may be given several times: its values are alternatives (--user alice \
                --user audrey), and the filters combine (every one given must match). --mrn ignores \
                case and takes the start of an MRN when only one MRN in the log starts so. \
                Times are UTC: '2026-11-22', '2026-11-22T09:30', a time with its offset \
                ('2026-11-27T10:33-05:00'), 'today', 'yesterday', or a duration ago ('30d', '12h'). \
                A user or MRN that no record names is said on standard error. \
                The log is read with its rotated files (FILE.N ... FILE.1, then FILE), oldest first, \
                as 'ward audit verify' reads it. \
                Show does not check the chain; run 'ward audit verify' for that. \
                With --all-hosts, reads every host's records from the site's database instead \
                (records on PostgreSQL; the site file's user needs SELECT on audit_record), \
                oldest first, each with its host.
                """
        )

        enum Format: String, ExpressibleByArgument, CaseIterable {
            case text, json, csv
        }

        /// What `--count-by` groups records by.
        enum CountBy: String, ExpressibleByArgument, CaseIterable {
            case user, mrn, action, day, outcome
        }

        @OptionGroup var global: GlobalOptions

        @Option(
            help: ArgumentHelp(
                "Only records of this user: signed on, or named by an administrative command. Repeatable.",
                valueName: "name"
            )
        )
        var user: [String] = []

        @Option(
            help: ArgumentHelp(
                "Only records of what was done to this MRN, or the one MRN that starts so; any case. Repeatable.",
                valueName: "mrn"
            )
        )
        var mrn: [String] = []

        @Option(
            help: ArgumentHelp(
                "Only what was done to records: list, open, read, write, close or break-glass. Repeatable.",
                valueName: "action"
            ),
            completion: .list(RecordAccess.Action.allCases.map(\.rawValue))
        )
        var action: [String] = []

        @Option(
            help: ArgumentHelp(
                "Only records from this time on (UTC, an offset, today, or '30d' ago).",
                valueName: "time"
            )
        )
        var since: String?

        @Option(help: ArgumentHelp("Only records before this time, written as for --since.", valueName: "time"))
        var until: String?

        @Option(
            help: ArgumentHelp(
                "Only records that ended so: ok, denied (refused lines, sign-ons and unlocks too), failed or started. Repeatable.",
                valueName: "outcome"
            )
        )
        var outcome: [RecordAccess.Outcome] = []

        @Option(
            help: ArgumentHelp(
                "Only records of this kind (sign-on, access, user-add, …); repeat it or separate kinds with commas.",
                valueName: "kind"
            ),
            completion: .list(AuditEntry.Kind.allCases.map(\.rawValue))
        )
        var kind: [String] = []

        @Option(
            name: .customLong("count-by"),
            help: ArgumentHelp("Count the records by user, mrn, action, day (UTC) or outcome, instead of listing them.")
        )
        var countBy: CountBy?

        @Option(
            help: """
                Output: a table (text), the records' own JSON lines, every field in order (json), or CSV \
                with a header row of every field (csv).
                """
        )
        var format: Format = .text

        @Flag(name: .customLong("all-hosts"), help: "Read every host's records from the site's database.")
        var allHosts = false

        @Argument(
            help: ArgumentHelp(
                "The log to read, with its rotated files; default: the site's audit log, or audit.jsonl in the Ward home.",
                valueName: "file"
            ),
            completion: .file()
        )
        var file: String?

        func validate() throws {
            if allHosts, file != nil {
                throw ValidationError("--all-hosts reads the site's database: give no file.")
            }
            _ = try question.filter()
        }

        /// The options as the question the shell's `audit` asks too (`AuditQuestion.filter`).
        private var question: AuditQuestion {
            var question = AuditQuestion()
            question.users = user
            question.mrns = mrn
            question.actions = action
            question.outcomes = outcome.map(\.rawValue)
            question.kinds = kind
            question.since = since
            question.until = until
            return question
        }

        func run() throws {
            let filter = try question.filter()
            let query: AuditQuery
            if allHosts {
                let trail = try SiteAuditTrail.read(global: global)
                query = try AuditQuery(lines: trail.sortedByTime, source: trail.source, filter: filter, typedMRNs: mrn)
            } else {
                let path = try Ward.Audit.logPath(file: file, global: global)
                query = try AuditQuery(path: path, filter: filter, typedMRNs: mrn)
            }
            for warning in query.warnings { StandardError.report(warning) }
            Ward.Audit.recordReading(global: global)
            guard format == .text else {
                return print(Self.answer(query, countBy: countBy, format: format), terminator: "")
            }
            let text = PagedText(global: global)
            Self.write(Self.table(query.records.map(\.record), countBy: countBy, hosts: allHosts), to: text.pages)
            try text.finish()
        }

        /// The records, or their counts, as the table text shows: the same columns as the
        /// shell's `audit` (`SessionAuditTrail`). Cells as the log holds them: the table
        /// sanitizes each as it lays it out.
        static func table(_ records: [AuditRecord], countBy: CountBy?, hosts: Bool = false) -> TextTable {
            if let countBy {
                return TextTable(
                    headers: [countBy.rawValue.uppercased(), "COUNT"],
                    rows: countRows(records, by: countBy).map { [$0.key, String($0.value)] }
                )
            }
            guard hosts else {
                return TextTable(headers: AuditTable.header, rows: records.map { AuditTable.row($0, clean: { $0 }) })
            }
            // Records of several hosts: which one wrote each comes first.
            return TextTable(
                headers: ["HOST"] + AuditTable.header,
                rows: records.map { [$0.object.string("host") ?? "-"] + AuditTable.row($0, clean: { $0 }) }
            )
        }

        /// `table`'s lines, its header marked for the pager. Never cut to the window's width: a
        /// log's detail is evidence, and the pager wraps what is wider than the window.
        static func write(_ table: TextTable, to pages: PageBuffer) {
            for (index, line) in table.render(width: Int.max).enumerated() {
                if index == 0 { pages.writeHeader(line) } else { pages.write(line) }
            }
        }

        /// What the question's records print as: a table (`table`, never cut to a width), the
        /// records' own JSON lines, or CSV; or their counts so.
        static func answer(_ query: AuditQuery, countBy: CountBy?, format: Format) -> String {
            let records = query.records.map(\.record)
            switch (format, countBy) {
            case (.text, _):
                return table(records, countBy: countBy).render(width: Int.max).map { $0 + "\n" }.joined()
            case (.json, let key?), (.csv, let key?):
                return counts(records, by: key, format: format)
            case (.json, nil):
                // The log's own compact JSON lines, byte for byte: every field, in the order
                // written, the hash last. Only what could drive the terminal changes: C0, DEL,
                // C1 and bidi controls become \uXXXX, which any JSON reader reads as the same
                // character, so the fields parse to what was written.
                return query.records.map { Sanitizer.json(String(decoding: $0.line, as: UTF8.self)) + "\n" }.joined()
            case (.csv, nil):
                return csv(records)
            }
        }

        /// Every field of every record as CSV: a header row of the fields in the order they first
        /// appear, then a row a record, each line ending in CRLF. Cells are sanitized and a
        /// formula is defused, as the shell's CSV does.
        static func csv(_ records: [AuditRecord]) -> String {
            let fields = fields(records)
            return ([fields.keys] + fields.rows).map { CSV.record($0) + "\r\n" }.joined()
        }

        /// Every field of every record: the fields' names in the order they first appear, and
        /// each record's values under them, as the log holds them. What CSV writes, here and in
        /// the shell (`format csv`, `--format csv`).
        static func fields(_ records: [AuditRecord]) -> AuditAnswer.Fields {
            var keys: [String] = []
            var seen = Set<String>()
            for record in records {
                for field in record.object.fields where seen.insert(field.key).inserted { keys.append(field.key) }
            }
            return AuditAnswer.Fields(
                keys: keys,
                rows: records.map { record in keys.map { record.object[$0].map(Self.text) ?? "" } }
            )
        }

        /// A field's value as a cell: a string as it is, a number in digits, null as nothing.
        static func text(_ value: CanonicalJSON.Value) -> String {
            switch value {
            case .string(let text): text
            case .integer(let number): String(number)
            default: ""
            }
        }

        /// The records counted by `key`, most first (ties in the key's order), as JSON lines
        /// (`{"user":"alice","count":3}`), or else CSV (text is `table`'s).
        static func counts(_ records: [AuditRecord], by key: CountBy, format: Format) -> String {
            let sorted = countRows(records, by: key)
            switch format {
            case .json:
                return sorted.map {
                    Sanitizer.json(#"{"\#(key.rawValue)":\#(jsonString($0.key)),"count":\#($0.value)}"#) + "\n"
                }.joined()
            case .csv, .text:
                return ([CSV.record([key.rawValue, "count"])] + sorted.map { CSV.record([$0.key, String($0.value)]) })
                    .map { $0 + "\r\n" }.joined()
            }
        }

        /// The records counted by `key`: each value (`-` for none) with its count, most first,
        /// ties in the value's order.
        static func countRows(_ records: [AuditRecord], by key: CountBy) -> [(key: String, value: Int)] {
            var counts: [String: Int] = [:]
            for record in records {
                let value: String? =
                    switch key {
                    case .user: record.user ?? record.object.string("target")
                    case .mrn: record.mrn
                    case .action: record.action ?? record.kind
                    case .day: record.timestamp.map { String($0.prefix(10)) }
                    case .outcome: record.outcome?.rawValue
                    }
                counts[value ?? "-", default: 0] += 1
            }
            return counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
        }

        /// `text` as a JSON string, escaped as the log's own records are (`CanonicalJSON`).
        static func jsonString(_ text: String) -> String {
            var out: [UInt8] = []
            CanonicalJSON.appendString(text, to: &out)
            return String(decoding: out, as: UTF8.self)
        }
    }
}

extension RecordAccess.Outcome: ExpressibleByArgument {}
