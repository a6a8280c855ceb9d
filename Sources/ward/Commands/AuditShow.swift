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
                Show does not check the chain; run 'ward audit verify' for that.
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

        @Argument(
            help: ArgumentHelp(
                "The log to read, with its rotated files; default: the site's audit log, or audit.jsonl in the Ward home.",
                valueName: "file"
            ),
            completion: .file()
        )
        var file: String?

        func validate() throws {
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
            let path = try Ward.Audit.logPath(file: file, global: global)
            let filter = try question.filter()
            let query = try AuditQuery(path: path, filter: filter, typedMRNs: mrn)
            for warning in query.warnings { StandardError.report(warning) }
            Ward.Audit.recordReading(global: global)
            print(Self.answer(query, countBy: countBy, format: format), terminator: "")
        }

        /// What the question's records print as: counts, the records' own JSON lines, CSV, or a
        /// table. The shell's `audit` shows the same.
        static func answer(_ query: AuditQuery, countBy: CountBy?, format: Format) -> String {
            if let countBy { return counts(query.records.map(\.record), by: countBy, format: format) }
            switch format {
            case .json:
                // The log's own compact JSON lines, byte for byte: every field, in the order
                // written, the hash last. Only what could drive the terminal changes: C0, DEL,
                // C1 and bidi controls become \uXXXX, which any JSON reader reads as the same
                // character, so the fields parse to what was written.
                return query.records.map { Sanitizer.json(String(decoding: $0.line, as: UTF8.self)) + "\n" }.joined()
            case .csv:
                return csv(query.records.map(\.record))
            case .text:
                // AuditTable sanitized every cell before measuring it; one table, so the columns
                // line up across the files.
                return AuditTable.render(query.records.map(\.record))
            }
        }

        /// Every field of every record as CSV: a header row of the fields in the order they first
        /// appear, then a row a record, each line ending in CRLF. Cells are sanitized and a
        /// formula is defused, as the shell's CSV does.
        static func csv(_ records: [AuditRecord]) -> String {
            var keys: [String] = []
            var seen = Set<String>()
            for record in records {
                for field in record.object.fields where seen.insert(field.key).inserted { keys.append(field.key) }
            }
            var out = CSV.record(keys) + "\r\n"
            for record in records {
                out += CSV.record(keys.map { record.object[$0].map(Self.text) ?? "" }) + "\r\n"
            }
            return out
        }

        /// A field's value as a cell: a string as it is, a number in digits, null as nothing.
        static func text(_ value: CanonicalJSON.Value) -> String {
            switch value {
            case .string(let text): text
            case .integer(let number): String(number)
            default: ""
            }
        }

        /// The records counted by `key`, most first (ties in the key's order), as a table, JSON
        /// lines (`{"user":"alice","count":3}`) or CSV.
        static func counts(_ records: [AuditRecord], by key: CountBy, format: Format) -> String {
            let sorted = countRows(records, by: key)
            switch format {
            case .json:
                return sorted.map {
                    Sanitizer.json(#"{"\#(key.rawValue)":\#(jsonString($0.key)),"count":\#($0.value)}"#) + "\n"
                }.joined()
            case .csv:
                return ([CSV.record([key.rawValue, "count"])] + sorted.map { CSV.record([$0.key, String($0.value)]) })
                    .map { $0 + "\r\n" }.joined()
            case .text:
                let header = key.rawValue.uppercased()
                let width = max(header.count, sorted.map { Sanitizer.line($0.key).count }.max() ?? 0)
                let line = { (a: String, b: String) in a + String(repeating: " ", count: width - a.count + 2) + b + "\n"
                }
                return line(header, "COUNT") + sorted.map { line(Sanitizer.line($0.key), String($0.value)) }.joined()
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
