import WardCore
import WardRecords

/// What `ward config check` finds of a site whose records are on PostgreSQL: whether the server
/// answers, whether its schema is this Ward's (`ward db migrate` applied), and whether the user
/// the site file connects as holds exactly what sessions need (`PostgresSiteCheck`).
///
/// A server that cannot be reached, a schema sessions would refuse, and a right sessions lack
/// are problems (exit 78: sessions would fail); a right beyond their needs is a warning, since
/// sessions work, with more than the documented setup gives them (DATABASE in ward(1)). Nothing
/// for the home's own SQLite file.
struct DatabaseCheck {
    let records: RecordsPolicy
    /// The site file, which findings name.
    let siteFile: String

    func run() -> [DeploymentCheck.Finding] {
        guard records.backend == .postgresql, let url = records.url else { return [] }
        let settings: PostgresSettings
        let check: PostgresSiteCheck
        do {
            settings = try PostgresSettings(policy: records, url: url)
            check = try PostgresSiteCheck.run(settings: settings)
        } catch {
            return [problem("the records database cannot be checked: \(error)")]
        }
        let target = "records database \(check.database) on \(check.server)"
        var findings: [DeploymentCheck.Finding] = []
        if let schema = check.schemaProblem {
            findings.append(problem(schema))
        } else {
            findings.append(
                DeploymentCheck.Finding(file: siteFile, severity: .fine, text: "\(target): schema up to date")
            )
        }
        if let privileges = check.privilegeProblem {
            let text =
                "\(target): the user \(check.user), which sessions connect as: \(privileges); "
                + "'ward db migrate --session-role \(check.user)' as the tables' owner sets exactly what sessions need"
            findings.append(
                DeploymentCheck.Finding(
                    file: siteFile,
                    severity: check.privilegesExceed ? .warning : .problem,
                    text: text
                )
            )
        } else if check.schemaProblem == nil {
            findings.append(
                DeploymentCheck.Finding(
                    file: siteFile,
                    severity: .fine,
                    text: "\(target): the user \(check.user) holds what sessions need, and nothing more"
                )
            )
        }
        return findings
    }

    private func problem(_ text: String) -> DeploymentCheck.Finding {
        DeploymentCheck.Finding(file: siteFile, severity: .problem, text: text)
    }
}
