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
        let filter = try question.filter()
        if let typed = question.reportMRN {
            let query = try AuditQuery(path: path, filter: filter, typedMRNs: [typed])
            let records = query.records.map(\.record)
            let mrn = records.first?.mrn ?? typed
            let accounting = Ward.Audit.Report.Accounting(
                mrn: mrn,
                name: patientName(mrn),
                days: Ward.Audit.Report.days(records)
            )
            return AuditAnswer(
                title: Ward.Audit.Report.title(accounting, clean: { $0 }),
                headers: ["DAY", "TIME", "USER", "ROLE", "ACTION", "SECTION", "OUTCOME", "REASON"],
                rows: accounting.days.flatMap { day in
                    day.accesses.map {
                        [day.day, $0.time, $0.user, $0.role, $0.action, $0.section, $0.outcome, $0.reason]
                    }
                },
                warnings: query.warnings
            )
        }
        let query = try AuditQuery(path: path, filter: filter, typedMRNs: question.mrns)
        let records = query.records.map(\.record)
        var countBy: Ward.Audit.Show.CountBy?
        if let name = question.countBy {
            guard let key = Ward.Audit.Show.CountBy(rawValue: name) else {
                throw ValidationError("--count-by '\(name)' is not one of user, mrn, action, day or outcome.")
            }
            countBy = key
        }
        // The columns `ward audit show` prints; CSV and JSON write every field of the records,
        // as `ward audit show --format csv` does.
        let table = Ward.Audit.Show.table(records, countBy: countBy)
        return AuditAnswer(
            headers: table.headers,
            rows: table.rows,
            warnings: query.warnings,
            fields: countBy == nil ? Ward.Audit.Show.fields(records) : nil
        )
    }
}
