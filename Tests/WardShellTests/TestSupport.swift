import FHIRTestSupport
import Foundation
import WardCore
import WardRecords
import WardShell

/// A records home in a fresh temporary directory with three patients, and a shell over it whose
/// output is captured.
///
/// - `M1` Ada Augusta Lovelace: a whole chart (allergy, problem, medication, encounter, vitals, a lab,
///   an immunization, a procedure, a care plan, a report, social history, a survey).
/// - `M2` Charles Babbage: demographics only.
/// - `M3` Grace Hopper: restricted (FHIR security label R).
final class ShellFixture {
    let home: String
    let store: SQLiteRecordStore
    let shell: Shell
    var lines: [String] = []
    var width = 100
    static let fixedNow = Date(timeIntervalSince1970: 1_700_000_000)

    init(role: Role? = .clinician, user: String = "alice") throws {
        home = NSTemporaryDirectory() + "ward-shell-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        store = try SQLiteRecordStore(home: home)
        var report = ImportReport()
        try FHIRImporter(store: store).importBundle(Self.bundle, file: "test.json", into: &report)
        var captured: (String) -> Void = { _ in }
        var widthOf: () -> Int = { 80 }
        shell = Shell(
            store: store,
            width: { widthOf() },
            now: { ShellFixture.fixedNow },
            output: { captured($0) }
        )
        captured = { [unowned self] in self.lines.append($0) }
        widthOf = { [unowned self] in self.width }
        if let role { shell.signedOn(user: user, role: role) }
        lines = []
    }

    deinit {
        store.close()
        try? FileManager.default.removeItem(atPath: home)
    }

    /// Runs one line and returns what it printed, and how it ended.
    @discardableResult
    func run(_ line: String) -> (result: CommandResult, output: String) {
        lines = []
        let result = shell.run(Line(line))
        return (result, lines.joined(separator: "\n"))
    }

    // MARK: The records

    static var bundle: Data {
        Bundles.bundle([
            Bundles.patient("p1", given: ["Ada", "Augusta"], family: "Lovelace", mrn: "M1", birthDate: "1815-12-10"),
            Bundles.patient(
                "p2",
                given: ["Charles"],
                family: "Babbage",
                mrn: "M2",
                birthDate: "1791-12-26",
                gender: "male"
            ),
            Bundles.patient(
                "p3",
                given: ["Grace"],
                family: "Hopper",
                mrn: "M3",
                birthDate: "1906-12-09",
                restricted: true
            ),
            Bundles.allergy("p1"), Bundles.condition("p1"), Bundles.medication("p1"), Bundles.encounter("p1"),
            Bundles.observation(
                "p1",
                code: "8867-4",
                display: "Heart rate",
                value: 72,
                unit: "/min",
                effective: "2020-05-06T07:08:09Z"
            ),
            Bundles.observation(
                "p1",
                category: "laboratory",
                code: "4548-4",
                display: "Hemoglobin A1c",
                value: 6.4,
                unit: "%",
                effective: "2020-05-06T07:08:09Z"
            ),
            Bundles.immunization("p1"),
            Bundles.procedure("p1", display: "Depression screening", reason: ("p1-x", "Stress (finding)")),
            Bundles.carePlan("p1"),
            Bundles.diagnosticReport("p1", name: "Hemoglobin A1c panel", results: [("p1-a1c", "Hemoglobin A1c")]),
            Bundles.smokingStatus("p1"), Bundles.surveyScore("p1"),
        ])
    }
}
