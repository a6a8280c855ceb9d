import WardCore
import WardRecords

/// `close [MRN]`: wipes one loaded chart (the current one by default) and forgets it.
///
/// Closing is a wipe, not just a hide: a chart the user is done with should not wait in memory
/// for the next lock. The chart is `closed`; naming one that is not open is a `failed` close.
/// Closing the current chart leaves none current; no other open chart takes its place.
struct CloseCommand: ShellCommand {
    static let syntax = CommandSyntax(
        "close",
        abstract: "Close the current chart, or the one named, wiping it from memory.",
        operand: .word(name: "mrn", help: "The MRN of a loaded chart; the current one if left out.", required: false)
    )

    let mrn: String?

    init(_ arguments: ParsedArguments) { mrn = arguments.operands.first }

    func run(in shell: Shell) throws -> CommandResult {
        let chart: LoadedChart
        if let mrn {
            guard let loaded = shell.loadedChart(mrn: mrn) else {
                shell.noteAccess(.closed, mrn, .failed)
                throw ShellError("no chart '\(mrn)' is open. 'charts' lists the open ones.")
            }
            chart = loaded
        } else {
            chart = try shell.currentChart()
        }
        let closed = PatientLabel.full(chart.patient)
        let mrn = chart.mrn
        shell.remove(chart)
        shell.noteAccess(.closed, mrn, .ok)
        if let current = shell.currentMRN.flatMap(shell.loadedChart(mrn:)) {
            shell.write("Closed \(closed). The current chart is still \(PatientLabel.full(current.patient)).", .line)
        } else if shell.charts.isEmpty {
            shell.write("Closed \(closed). No chart is open.", .line)
        } else {
            shell.write("Closed \(closed). No chart is current: 'charts' lists the open ones.", .line)
        }
        return .succeeded
    }
}
