import Foundation
import WardCore
import WardRecords
import WardShell

/// A records home in a fresh temporary directory with three patients, and a shell over it whose
/// output is captured.
///
/// - `M1` Ada Augusta Lovelace: a whole chart (allergy, problem, medication, encounter, vitals, a lab).
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
        let entries: [[String: Any]] = [
            patient("p1", given: ["Ada", "Augusta"], family: "Lovelace", mrn: "M1", birthDate: "1815-12-10"),
            patient("p2", given: ["Charles"], family: "Babbage", mrn: "M2", birthDate: "1791-12-26", gender: "male"),
            patient("p3", given: ["Grace"], family: "Hopper", mrn: "M3", birthDate: "1906-12-09", restricted: true),
            [
                "resource": [
                    "resourceType": "AllergyIntolerance", "criticality": "high", "category": ["food"],
                    "clinicalStatus": ["coding": [["code": "active"]]],
                    "code": ["coding": [["code": "256349002", "display": "Peanut"]]],
                    "patient": ["reference": "urn:uuid:p1"], "recordedDate": "2001-02-03",
                ]
            ],
            [
                "resource": [
                    "resourceType": "Condition", "clinicalStatus": ["coding": [["code": "active"]]],
                    "code": [
                        "coding": [["system": "http://snomed.info/sct", "code": "44054006", "display": "Diabetes"]]
                    ],
                    "subject": ["reference": "urn:uuid:p1"], "onsetDateTime": "2010-01-02T03:04:05+00:00",
                ]
            ],
            [
                "resource": [
                    "resourceType": "MedicationRequest", "status": "active",
                    "medicationCodeableConcept": ["coding": [["code": "860975", "display": "metformin"]]],
                    "subject": ["reference": "urn:uuid:p1"], "authoredOn": "2010-01-02T03:04:05Z",
                    "dosageInstruction": [["text": "twice daily"]],
                ]
            ],
            [
                "resource": [
                    "resourceType": "Encounter", "class": ["code": "AMB"],
                    "type": [["coding": [["code": "185349003", "display": "Encounter for check up"]]]],
                    "subject": ["reference": "urn:uuid:p1"],
                    "period": ["start": "2020-05-06T07:00:00Z", "end": "2020-05-06T07:30:00Z"],
                ]
            ],
            observation("p1", category: "vital-signs", code: "8867-4", display: "Heart rate", value: 72, unit: "/min"),
            observation("p1", category: "laboratory", code: "4548-4", display: "Hemoglobin A1c", value: 6.4, unit: "%"),
        ]
        return try! JSONSerialization.data(
            withJSONObject: ["resourceType": "Bundle", "type": "transaction", "entry": entries])
    }

    static func patient(
        _ id: String,
        given: [String],
        family: String,
        mrn: String,
        birthDate: String,
        gender: String = "female",
        restricted: Bool = false
    ) -> [String: Any] {
        var resource: [String: Any] = [
            "resourceType": "Patient", "id": id,
            "name": [["use": "official", "given": given, "family": family]],
            "birthDate": birthDate, "gender": gender,
            "telecom": [["system": "phone", "value": "555-0100"]],
            "address": [["line": ["1 Main St"], "city": "Boston", "state": "MA", "postalCode": "02108"]],
            "identifier": [
                [
                    "type": ["coding": [["system": "http://terminology.hl7.org/CodeSystem/v2-0203", "code": "MR"]]],
                    "value": mrn,
                ]
            ],
        ]
        if restricted { resource["meta"] = ["security": [["code": "R"]]] }
        return ["fullUrl": "urn:uuid:\(id)", "resource": resource]
    }

    static func observation(
        _ patient: String,
        category: String,
        code: String,
        display: String,
        value: Double,
        unit: String
    ) -> [String: Any] {
        [
            "resource": [
                "resourceType": "Observation", "status": "final",
                "category": [["coding": [["code": category]]]],
                "code": [
                    "coding": [["system": "http://loinc.org", "code": code, "display": display]], "text": display,
                ],
                "subject": ["reference": "urn:uuid:\(patient)"],
                "effectiveDateTime": "2020-05-06T07:08:09Z",
                "valueQuantity": ["value": value, "unit": unit],
            ]
        ]
    }
}
