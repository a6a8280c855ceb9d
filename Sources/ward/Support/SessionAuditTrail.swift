import ArgumentParser
import AuditLog
import WardCore
import WardShell

/// The audit trail an auditor's `audit` reads in a session: the log `ward audit show` reads by
/// default (the site's audit log, else the home's), rotated files and all, answered as `ward
/// audit show` and `ward audit report` answer, from the same code.
struct SessionAuditTrail: AuditTrail {
    /// The log, as `Ward.Audit.logPath` found it when the session started.
    let path: String

    func answer(_ question: AuditQuestion, patientName: (String) -> String?) throws -> AuditAnswer {
        let filter = try Self.filter(question)
        if let typed = question.reportMRN {
            var report = filter
            report.actions = Set(AuditFilter.actionNames)
            let query = try AuditQuery(path: path, filter: report, typedMRNs: [typed])
            let records = query.records.map(\.record)
            let mrn = records.first?.mrn ?? typed
            let days = Ward.Audit.Report.days(records)
            let count = days.reduce(0) { $0 + $1.accesses.count }
            let who = patientName(mrn).map { "\($0) (MRN \(mrn))" } ?? "MRN \(mrn)"
            return AuditAnswer(
                title:
                    "Accesses to the record of \(who): \(count) in \(days.count) day\(days.count == 1 ? "" : "s") (times UTC).",
                headers: ["DAY", "TIME", "USER", "ROLE", "ACTION", "SECTION", "OUTCOME", "REASON"],
                rows: days.flatMap { day in
                    day.accesses.map {
                        [day.day, $0.time, $0.user, $0.role, $0.action, $0.section, $0.outcome, $0.reason]
                    }
                },
                warnings: query.warnings
            )
        }
        let query = try AuditQuery(path: path, filter: filter, typedMRNs: question.mrns)
        let records = query.records.map(\.record)
        if let name = question.countBy {
            guard let key = Ward.Audit.Show.CountBy(rawValue: name) else {
                throw ValidationError("--count-by '\(name)' is not one of user, mrn, action, day or outcome.")
            }
            let rows = Ward.Audit.Show.countRows(records, by: key).map { [$0.key, String($0.value)] }
            return AuditAnswer(headers: [name.uppercased(), "COUNT"], rows: rows, warnings: query.warnings)
        }
        return AuditAnswer(
            headers: AuditTable.header,
            rows: records.map { AuditTable.row($0, clean: { $0 }) },
            warnings: query.warnings
        )
    }

    /// The filters of `question`, checked as `ward audit show` checks its options.
    static func filter(_ question: AuditQuestion) throws -> AuditFilter {
        func time(_ name: String, _ value: String?) throws -> Int64? {
            guard let value else { return nil }
            guard let time = AuditTime.parse(value) else {
                throw ValidationError(
                    "--\(name) '\(value)' is not a time; write '2026-11-22', '2026-11-22T09:30-05:00', 'today' or '30d'."
                )
            }
            return time
        }
        for value in question.actions where !AuditFilter.actionNames.contains(value) {
            throw ValidationError(
                "--action '\(value)' is not an action; choose from \(AuditFilter.actionNames.joined(separator: ", "))."
            )
        }
        let outcomes = try question.outcomes.map { value in
            guard let outcome = RecordAccess.Outcome(rawValue: value) else {
                throw ValidationError("--outcome '\(value)' is not one of ok, denied, failed or started.")
            }
            return outcome
        }
        let kinds: Set<AuditEntry.Kind>?
        do throws(AuditFilter.UnknownKind) {
            kinds = question.kinds.isEmpty ? nil : try AuditFilter.kinds(question.kinds)
        } catch {
            throw ValidationError("--kind '\(error.value)' is not a record kind.")
        }
        return AuditFilter(
            users: question.users.isEmpty ? nil : Set(question.users),
            since: try time("since", question.since),
            until: try time("until", question.until),
            outcomes: outcomes.isEmpty ? nil : Set(outcomes),
            kinds: kinds,
            actions: question.actions.isEmpty ? nil : Set(question.actions)
        )
    }
}
