import WardCore
import WardRecords

/// `charts`: what this session holds in memory, so the user can close what they no longer need.
///
/// It reads no record: only charts this session opened (each already on record as `opened`),
/// from memory, so it notes no access.
struct ChartsCommand: ShellCommand {
    static let syntax = CommandSyntax("charts", abstract: "List the charts open in this session.")

    init(_ arguments: ParsedArguments) {}

    func run(in shell: Shell) throws -> CommandResult {
        guard !shell.charts.isEmpty else {
            shell.write("No chart is open. Open one with 'open MRN'.")
            return .succeeded
        }
        let rows = shell.charts.map { chart in
            [
                chart.mrn == shell.currentMRN ? "*" : "",
                chart.mrn,
                PatientLabel.name(chart.patient),
                PatientLabel.born(chart.patient.birthDate),
            ]
        }
        shell.write(
            TextTable(
                headers: ["", "MRN", "NAME", "BORN"],
                rows: rows,
                keys: ["current", "mrn", "name", "born"],
                values: zip(shell.charts, rows).map { chart, row in
                    [
                        "current": .bool(chart.mrn == shell.currentMRN), "mrn": .text(row[1]), "name": .text(row[2]),
                        "born": .text(row[3]),
                    ]
                }
            )
        )
        return .succeeded
    }
}
