import ArgumentParser
import AuditLog
import FoundationEssentials
import WardCore
import WardRecords
import WardShell

extension Ward.Audit {
    /// `ward audit report --mrn MRN`: the accounting of one patient's record, as a patient may
    /// ask for it (HIPAA, 45 CFR 164.528): who listed, opened, read, wrote or closed it, and every
    /// break of the glass with its reason, grouped by day.
    ///
    /// The patient is named at the top by name and MRN, the name read from the site's records
    /// when they can be opened; the MRN alone when they cannot (a host without the records, a
    /// patient since removed). The report reads the same log, rotated files and all, as `show`.
    struct Report: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "report",
            abstract: "Account for every access to one patient's record, by day.",
            discussion: """
                The MRN ignores case, and may be the start of one when only one MRN in the log starts so. \
                Times are written as for 'ward audit show': UTC, an offset, 'today', 'yesterday' or '30d' ago.
                """
        )

        @OptionGroup var global: GlobalOptions

        @Option(help: ArgumentHelp("The patient's MRN, or its start.", valueName: "mrn"))
        var mrn: String

        @Option(help: ArgumentHelp("Only accesses from this time on.", valueName: "time"))
        var since: String?

        @Option(help: ArgumentHelp("Only accesses before this time.", valueName: "time"))
        var until: String?

        @Option(help: "Output: text grouped by day, CSV (one row an access), or one JSON object.")
        var format: Show.Format = .text

        @Argument(
            help: ArgumentHelp("The log to read; default: the site's audit log.", valueName: "file"),
            completion: .file()
        )
        var file: String?

        func validate() throws {
            _ = try question.filter()
        }

        /// The options as the question the shell's `audit report` asks too.
        private var question: AuditQuestion {
            var question = AuditQuestion(reportMRN: mrn)
            question.since = since
            question.until = until
            return question
        }

        /// One access as the report lists it.
        struct Access: Encodable {
            var time: String
            var user: String
            var role: String
            var action: String
            var section: String
            var outcome: String
            var reason: String
        }

        /// One day's accesses, oldest first.
        struct Day: Encodable {
            var day: String
            var accesses: [Access]
        }

        /// The whole report, as JSON writes it.
        struct Accounting: Encodable {
            var mrn: String
            var name: String?
            var days: [Day]
        }

        func run() throws {
            let path = try Ward.Audit.logPath(file: file, global: global)
            let filter = try question.filter()
            let query = try AuditQuery(path: path, filter: filter, typedMRNs: [mrn])
            for warning in query.warnings { StandardError.report(warning) }
            Ward.Audit.recordReading(global: global)
            let records = query.records.map(\.record)
            let storedMRN = records.first?.mrn ?? mrn
            let accounting = Accounting(mrn: storedMRN, name: patientName(storedMRN), days: Self.days(records))
            guard format == .text else { return print(try Self.answer(accounting, format: format), terminator: "") }
            let text = PagedText(global: global)
            Self.write(accounting, to: text.pages)
            try text.finish()
        }

        /// The accounting as text, CSV or JSON. The shell's `audit report` shows the same.
        static func answer(_ accounting: Accounting, format: Show.Format) throws -> String {
            switch format {
            case .json:
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
                return Sanitizer.json(String(decoding: try encoder.encode(accounting), as: UTF8.self)) + "\n"
            case .csv:
                var out =
                    CSV.record(["day", "time", "user", "role", "action", "section", "outcome", "reason"]) + "\r\n"
                for day in accounting.days {
                    for a in day.accesses {
                        out +=
                            CSV.record([day.day, a.time, a.user, a.role, a.action, a.section, a.outcome, a.reason])
                            + "\r\n"
                    }
                }
                return out
            case .text:
                var out = ""
                write(accounting, to: PageBuffer(print: { out += $0 + "\n" }))
                return out
            }
        }

        /// The records grouped by their UTC day, in the log's order. A write's `started` record,
        /// written before it, is left out when the write's outcome follows in the same session:
        /// one access, one row. One with no outcome after it stays: an attempt that may have
        /// written, which an accounting must show.
        static func days(_ records: [AuditRecord]) -> [Day] {
            var finished = Set<String>()
            var kept: [AuditRecord] = []
            for record in records.reversed() {
                let key = [record.object.string("session") ?? "", record.action ?? "", record.mrn ?? ""].joined(
                    separator: "\u{0}"
                )
                if record.outcome == .started {
                    if finished.remove(key) != nil { continue }
                } else {
                    finished.insert(key)
                }
                kept.append(record)
            }
            var days: [Day] = []
            for record in kept.reversed() {
                let ts = record.timestamp ?? ""
                let access = Access(
                    time: String(ts.dropFirst(11)),
                    user: record.user ?? "",
                    role: record.object.string("role") ?? "",
                    action: record.action ?? "",
                    section: record.object.string("section") ?? "",
                    outcome: record.outcome?.rawValue ?? "",
                    reason: record.kind == AuditEntry.Kind.breakGlass.rawValue
                        ? record.object.string("reason") ?? "" : ""
                )
                let day = String(ts.prefix(10))
                if days.last?.day == day {
                    days[days.count - 1].accesses.append(access)
                } else {
                    days.append(Day(day: day, accesses: [access]))
                }
            }
            return days
        }

        /// The report's first line: the patient by name and MRN (the MRN alone without a name),
        /// and how many accesses on how many days. `clean` is applied to the name and the MRN;
        /// the shell, which sanitizes as it shows, passes the identity.
        static func title(_ accounting: Accounting, clean: (String) -> String) -> String {
            let mrn = clean(accounting.mrn)
            let who = accounting.name.map { "\(clean($0)) (MRN \(mrn))" } ?? "MRN \(mrn)"
            let count = accounting.days.reduce(0) { $0 + $1.accesses.count }
            let days = accounting.days.count
            return "Accesses to the record of \(who): \(count) in \(days) day\(days == 1 ? "" : "s") (times UTC)."
        }

        /// The report for people: the patient, then each day's accesses under the columns'
        /// header, the columns lined up across the days (one `TextTable`, never cut to the
        /// window's width). Every field is escaped: names and reasons came from records and
        /// users. Each day's header is marked so, for the pager to keep at the top of its pages.
        static func write(_ accounting: Accounting, to pages: PageBuffer) {
            pages.write(title(accounting, clean: Sanitizer.line))
            let accesses = TextTable(
                headers: ["TIME", "USER", "ROLE", "ACTION", "SECTION", "OUTCOME", "REASON"],
                rows: accounting.days.flatMap(\.accesses).map {
                    [$0.time, $0.user, $0.role, $0.action, $0.section, $0.outcome, $0.reason]
                }
            )
            let lines = accesses.render(width: Int.max)
            var next = 1
            for day in accounting.days {
                pages.write("")
                pages.write(Sanitizer.line(day.day))
                pages.writeHeader("  " + lines[0])
                for line in lines[next..<next + day.accesses.count] { pages.write("  " + line) }
                next += day.accesses.count
            }
        }

        /// The patient's name from the site's records, or nil when they cannot be read here.
        private func patientName(_ mrn: String) -> String? {
            do {
                let home = try WardHome.open(option: global.home, create: false)
                guard let store = try recordsBackend(global: global, home: home).existingStore() else { return nil }
                defer { store.close() }
                guard let match = try store.lookUp(mrn: mrn) else { return nil }
                let name = match.given.isEmpty ? match.family : "\(match.family), \(match.given)"
                return name.isEmpty ? nil : name
            } catch {
                return nil
            }
        }
    }
}
