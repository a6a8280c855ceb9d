import ArgumentParser
import WardCore
import WardRecords

/// `open MRN [--reason TEXT]`: loads one chart and makes it the prompt's context.
///
/// By MRN, never by name: names collide, and each audit record must name one patient.
/// A restricted chart (a VIP, a member of staff) opens only with a stated reason — breaking the
/// glass — kept as `Shell.lastBreakGlass` for the audit trail; the check runs on the `find` row,
/// before anything clinical is read. Every role may open a chart; clerks and auditors get the
/// demographics only, and the clinical rows are never loaded for them.
struct OpenCommand: ShellCommand {
    static let configuration = CommandConfiguration(
        commandName: "open", abstract: "Open one patient's chart by medical record number.")

    @Argument(help: "The patient's MRN, as listed by 'find'.")
    var mrn: String

    @Option(help: "Why you open a restricted chart (break the glass); recorded in the audit trail.")
    var reason: String?

    func validate() throws {
        if mrn.allSatisfy(\.isLetter) {
            throw ValidationError("'open' takes an MRN, not a name. To search by name, use 'find'.")
        }
        if let reason, reason.trimmingCharacters(in: .whitespaces).isEmpty {
            throw ValidationError("The reason is empty. Say why you open this chart.")
        }
    }

    func run(in shell: Shell) throws -> CommandResult {
        if let chart = shell.loadedChart(mrn: mrn) {
            shell.select(chart)
            shell.write("\(chart.mrn) is already open; it is the current chart again.")
            return .succeeded
        }
        let store = try shell.records()
        guard let match = try store.lookUp(mrn: mrn) else {
            throw ShellError("no patient has the MRN '\(mrn)'. Use 'find' to look it up.")
        }
        if match.restricted {
            guard let reason else {
                throw ShellError(
                    "\(match.mrn) is a restricted chart. To open it, say why; the reason is recorded: open \(match.mrn) --reason \"…\""
                )
            }
            shell.noteBreakGlass(BreakGlass(mrn: match.mrn, user: shell.user ?? "", reason: reason, time: shell.now()))
        }
        let chart = try store.chart(mrn: match.mrn, contents: shell.chartContents)
        shell.add(chart)
        let patient = chart.patient
        var line = "Opened \(patient.mrn): \(ChartFormat.name(given: patient.given, family: patient.family))"
        line += ", born \(patient.birthDate.isEmpty ? "unknown" : patient.birthDate), \(patient.sex.rawValue)."
        shell.write(line)
        if shell.chartContents == .demographics {
            shell.write("Demographics only: the \(shell.role ?? "") role does not see clinical sections.")
        }
        return .succeeded
    }
}
