import FHIRTestSupport
import Foundation
import Testing

@testable import WardRecords

@Test func importBundle_good_importsEveryKeptType_andCountsTheRest() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let store = try SQLiteRecordStore(home: home.path)
    var report = ImportReport()
    try FHIRImporter(store: store).importBundle(
        Bundles.complete("p1", given: ["Ada"], family: "Lovelace", mrn: "M1"),
        file: "a.json",
        into: &report
    )
    #expect(report.bundles == 1 && report.patients == 1 && report.failures.isEmpty)
    #expect(
        report.imported == [
            "Patient": 1, "AllergyIntolerance": 1, "Condition": 1, "MedicationRequest": 1, "Encounter": 1,
            "Observation": 2,
        ]
    )
    #expect(report.skipped == ["Claim": 2, "ExplanationOfBenefit": 1])
    #expect(try store.chart(mrn: "M1").observations.count == 3)
}

@Test func importBundle_malformed_namesFileAndJSONPath_andImportsNothing() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let store = try SQLiteRecordStore(home: home.path)
    var observation = Bundles.observation("p1", code: "8867-4", display: "Heart rate", value: 72, unit: "/min")
    var resource = observation["resource"] as! [String: Any]
    resource["subject"] = ["reference": 42]
    observation["resource"] = resource
    let data = Bundles.bundle([
        Bundles.patient("p1", given: ["Ada"], family: "Lovelace", mrn: "M1"), Bundles.condition("p1"),
        Bundles.other("Claim"), observation,
    ])
    var report = ImportReport()
    #expect(
        throws: StoreError.malformedBundle(
            file: "bad.json",
            path: "entry[3].resource.subject.reference",
            problem: "expected a string"
        )
    ) {
        try FHIRImporter(store: store).importBundle(data, file: "bad.json", into: &report)
    }
    #expect(try store.lookUp(mrn: "M1") == nil)
    #expect(report.bundles == 0)
}

@Test func importBundle_referenceToNoPatient_isMalformed_atItsPath() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let store = try SQLiteRecordStore(home: home.path)
    let data = Bundles.bundle([Bundles.patient("p1", given: ["Ada"], family: "Lovelace"), Bundles.condition("nobody")])
    var report = ImportReport()
    #expect(
        throws: StoreError.malformedBundle(
            file: "b.json",
            path: "entry[1].resource.subject.reference",
            problem: "refers to no Patient in this bundle or imported before"
        )
    ) {
        try FHIRImporter(store: store).importBundle(data, file: "b.json", into: &report)
    }
    // The patient written before the bad reference was found is rolled back with the rest.
    #expect(try store.find("lovelace").matches.isEmpty)
}

@Test func importBundle_badValues_areNamedByPath() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let store = try SQLiteRecordStore(home: home.path)
    let cases: [(Data, String)] = [
        (Data("{not json".utf8), "(root)"),
        (try JSONSerialization.data(withJSONObject: ["resourceType": "Patient"]), "resourceType"),
        (
            Bundles.bundle([Bundles.patient("p1", given: ["A"], family: "B", birthDate: "03/04/1970")]),
            "entry[0].resource.birthDate"
        ),
        (Bundles.bundle([Bundles.patient("p1", given: ["A"], family: "B", gender: "f")]), "entry[0].resource.gender"),
        (Bundles.bundle([["fullUrl": "urn:uuid:x"]]), "entry[0].resource"),
        (
            Bundles.bundle([
                Bundles.patient("p1", given: ["A"], family: "B"), Bundles.allergy("p1"), ["resource": ["code": [:]]],
            ]), "entry[2].resource.resourceType"
        ),
    ]
    for (data, path) in cases {
        var report = ImportReport()
        do {
            try FHIRImporter(store: store).importBundle(data, file: "x.json", into: &report)
            Issue.record("expected a malformed bundle at \(path)")
        } catch let StoreError.malformedBundle(file, found, _) {
            #expect(file == "x.json")
            #expect(found == path)
        }
    }
    #expect(try store.find("b").matches.isEmpty)
}

@Test func importBundle_twice_refreshesInsteadOfDuplicating() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let store = try SQLiteRecordStore(home: home.path)
    let data = Bundles.complete("p1", given: ["Ada"], family: "Lovelace", mrn: "M1")
    try store.importing(data)
    _ = try store.addNote(mrn: "M1", author: "alice", text: "Kept across imports.", at: Date())
    try store.importing(data)
    let chart = try store.chart(mrn: "M1")
    #expect(chart.observations.count == 3 && chart.problems.count == 1)
    #expect(chart.notes.count == 1)
    #expect(try store.find("lovelace").total == 1)
}

@Test func importBundle_laterBundle_mayReferToAPatientImportedBefore() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let store = try SQLiteRecordStore(home: home.path)
    try store.importing(Bundles.bundle([Bundles.patient("p1", given: ["Ada"], family: "Lovelace", mrn: "M1")]))
    try store.importing(Bundles.bundle([Bundles.condition("p1")]))
    #expect(try store.chart(mrn: "M1").problems.count == 1)
}

@Test func importBundles_goesOnPastFailures_andExits65() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let inputs = home.path + "/in"
    try FileManager.default.createDirectory(atPath: inputs + "/nested", withIntermediateDirectories: true)
    try Bundles.complete("p1", given: ["Ada"], family: "Lovelace", mrn: "M1").write(
        to: URL(fileURLWithPath: inputs + "/a.json")
    )
    try Data("[]".utf8).write(to: URL(fileURLWithPath: inputs + "/b.json"))
    try Bundles.complete("p2", given: ["Grace"], family: "Hopper", mrn: "M2").write(
        to: URL(fileURLWithPath: inputs + "/nested/c.json")
    )
    try Data("ignored".utf8).write(to: URL(fileURLWithPath: inputs + "/notes.txt"))
    let store = try SQLiteRecordStore(home: home.path)
    var calls: [Int] = []
    let report = FHIRImporter(store: store).importBundles(at: [inputs, home.path + "/missing.json"]) { done, total, _ in
        calls.append(done)
        #expect(total == 3)
    }
    #expect(calls == [1, 2, 3])
    #expect(report.files == 3 && report.bundles == 2 && report.patients == 2)
    #expect(
        report.failures == [
            .unreadable(path: home.path + "/missing.json"),
            .malformedBundle(file: inputs + "/b.json", path: "(root)", problem: "expected a FHIR Bundle object"),
        ]
    )
    #expect(report.exitStatus == .dataError)
    #expect(try store.find("hopper").matches.map(\.mrn) == ["M2"])
}

@Test func fhirDate_readsFHIRForms_andRejectsOthers() {
    #expect(FHIRDate.seconds("1970-01-01T00:00:00Z") == 0)
    #expect(FHIRDate.seconds("1970-01-01T01:00:00+01:00") == 0)
    #expect(FHIRDate.seconds("2020-05-06T07:08:09.123-05:00") == 1_588_766_889)
    #expect(FHIRDate.seconds("2001-02-03") == 981_158_400)
    #expect(FHIRDate.seconds("2001-02") == 980_985_600)
    #expect(FHIRDate.seconds("2001") == 978_307_200)
    for bad in ["", "01-02-2001", "2001-13-01", "2001-02-03T25:00:00Z", "2001-02-03T10:00", "2001-02-03Tnope"] {
        #expect(FHIRDate.seconds(bad) == nil)
    }
    #expect(FHIRDate.calendarDate("2001-02-03") == "2001-02-03")
    #expect(FHIRDate.calendarDate("2001-02-03T10:00:00Z") == nil)
}

// MARK: Hostile bundles

/// Imports `data` as `file`, returning the error it was refused with (nil when imported).
private func refusal(_ store: SQLiteRecordStore, _ data: Data, file: String = "bundle.json") -> StoreError? {
    var report = ImportReport()
    do {
        try FHIRImporter(store: store).importBundle(data, file: file, into: &report)
        return nil
    } catch let error as StoreError {
        return error
    } catch {
        Issue.record("unexpected \(error)")
        return nil
    }
}

/// The counts `show` would list for `mrn`, and the name: what an import must not change.
private func snapshot(_ store: SQLiteRecordStore, _ mrn: String) throws -> [String] {
    let chart = try store.chart(mrn: mrn)
    return [
        chart.patient.given, chart.patient.family, "\(chart.allergies.count)", "\(chart.problems.count)",
        "\(chart.medications.count)", "\(chart.observations.count)", "\(chart.encounters.count)",
        "\(chart.notes.count)",
    ]
}

@Test func importBundle_mrnThatIsNotPrintableASCII_isRefused_namingFileAndField() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let store = try SQLiteRecordStore(home: home.path)
    for mrn in ["M\u{1B}]0;pwned\u{07}", "M 1", "M\u{0}1", "Mé", "M\u{202E}1", "M\u{9B}1", "M\u{7F}"] {
        let error = refusal(
            store,
            Bundles.bundle([Bundles.patient("p1", given: ["Ada"], family: "Lovelace", mrn: mrn)])
        )
        guard case .malformedBundle(let file, let path, let problem)? = error else {
            Issue.record("expected a malformed bundle for \(mrn.debugDescription), got \(String(describing: error))")
            continue
        }
        #expect(file == "bundle.json")
        #expect(path == "entry[0].resource.identifier[0].value")
        #expect(problem.hasPrefix(#"the MR identifier of Patient "p1" is not printable ASCII without spaces"#))
        #expect(error?.exitStatus == .dataError)
        // Quoted as it is: the writers of Ward's errors show its controls (Sanitizer), once.
        #expect(error!.description.contains("\"\(mrn)\""), "\(error!.description)")
    }
    #expect(try store.find("lovelace").matches.isEmpty)
}

@Test func importBundle_patientIDThatIsNotPrintableASCII_isRefused() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let store = try SQLiteRecordStore(home: home.path)
    let error = refusal(store, Bundles.bundle([Bundles.patient("p\u{0}1", given: ["A"], family: "B", mrn: "M1")]))
    #expect(
        error
            == .malformedBundle(
                file: "bundle.json",
                path: "entry[0].resource.id",
                problem: "the Patient's id is not printable ASCII without spaces: \"p\u{0}1\""
            )
    )
    #expect(try store.lookUp(mrn: "M1") == nil)
}

@Test func importBundle_nulInsideAString_isKeptWhole_notCutShort() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let store = try SQLiteRecordStore(home: home.path)
    // Written by hand: the escape exactly as a hostile bundle would carry it.
    let json = """
        {"resourceType": "Bundle", "entry": [
          {"fullUrl": "urn:uuid:p1", "resource": {"resourceType": "Patient", "id": "p1",
            "identifier": [{"type": {"coding": [{"code": "MR"}]}, "value": "M1"}],
            "name": [{"given": ["nul\\u0000byte"], "family": "Love\\u0000lace"}]}},
          {"resource": {"resourceType": "Condition", "subject": {"reference": "urn:uuid:p1"},
            "code": {"coding": [{"code": "1"}], "text": "a\\u0000b"}}},
          {"resource": {"resourceType": "Observation", "subject": {"reference": "urn:uuid:p1"},
            "effectiveDateTime": "2020-01-01", "code": {"text": "c\\u0000d"}, "valueString": "e\\u0000f"}}
        ]}
        """
    try store.importing(Data(json.utf8))
    let chart = try store.chart(mrn: "M1")
    #expect(chart.patient.given == "nul\u{0}byte")
    #expect(chart.patient.family == "Love\u{0}lace")
    #expect(chart.problems.map(\.display) == ["a\u{0}b"])
    #expect(chart.observations.map(\.display) == ["c\u{0}d"])
    #expect(chart.observations.map(\.text) == ["e\u{0}f"])
    #expect(try store.lookUp(mrn: "M1")?.given == "nul\u{0}byte")
    #expect(try store.find("byte").matches.map(\.given) == ["nul\u{0}byte"])
    // A second import of the same bundle finds the same observation code, NUL and all.
    try store.importing(Data(json.utf8))
    #expect(try store.chart(mrn: "M1").observations.count == 1)
}

@Test func importBundle_newIDWithAnotherPatientsMRN_isRefused_andChangesNothing() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let store = try SQLiteRecordStore(home: home.path)
    try store.importing(Bundles.complete("victim-id", given: ["Ada"], family: "Lovelace", mrn: "M1"))
    _ = try store.addNote(mrn: "M1", author: "alice", text: "Kept.", at: Date())
    let before = try snapshot(store, "M1")
    // The issue's scenario: a new id, the victim's MR identifier, a thinner history.
    let hostile = Bundles.bundle([
        Bundles.patient("intruder-id", given: ["Mallory"], family: "Evil", mrn: "M1"),
        Bundles.condition("intruder-id"),
    ])
    let error = refusal(store, hostile, file: "evil.json")
    #expect(
        error
            == .patientClash(
                file: "evil.json",
                clash: .mrnHeldByOtherPatient(mrn: "M1", bundleID: "intruder-id", storedID: "victim-id")
            )
    )
    #expect(
        error?.description
            == #"evil.json: Patient "intruder-id" has the MRN "M1", which the stored patient "victim-id" holds; "#
            + "a patient is refreshed only when both its id and its MRN match; nothing of this bundle was imported"
    )
    #expect(error?.exitStatus == .dataError)
    #expect(try snapshot(store, "M1") == before)
    // The MRN compares without case, as the store's unique index does.
    let lower = Bundles.bundle([Bundles.patient("intruder-id", given: ["Mallory"], family: "Evil", mrn: "m1")])
    #expect(refusal(store, lower) != nil)
    #expect(try store.find("mallory").matches.isEmpty)
    #expect(try snapshot(store, "M1") == before)
}

@Test func importBundle_sameIDWithAnotherMRN_isRefused_andImportsNothingOfTheBundle() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let store = try SQLiteRecordStore(home: home.path)
    try store.importing(Bundles.complete("p1", given: ["Ada"], family: "Lovelace", mrn: "M1"))
    let before = try snapshot(store, "M1")
    let bundle = Bundles.bundle([
        Bundles.patient("p2", given: ["Grace"], family: "Hopper", mrn: "M2"),  // fine on its own
        Bundles.patient("p1", given: ["Eve"], family: "Other", mrn: "M9"),
        Bundles.condition("p1"),
    ])
    #expect(
        refusal(store, bundle)
            == .patientClash(file: "bundle.json", clash: .idHeldWithOtherMRN(id: "p1", mrn: "M9", storedMRN: "M1"))
    )
    #expect(try snapshot(store, "M1") == before)
    #expect(try store.lookUp(mrn: "M2") == nil)
    #expect(try store.lookUp(mrn: "M9") == nil)
}

@Test func importBundle_mrnOfAPatientWithNoFHIRID_isRefused() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let store = try SQLiteRecordStore(home: home.path)
    try store.write { db in
        try db.execute(
            """
            INSERT INTO patient (mrn, given, family, birth_date, sex, phone, address)
            VALUES ('W1', 'Typed', 'In', '1970-01-01', 'female', '', '')
            """
        )
    }
    let bundle = Bundles.bundle([Bundles.patient("p1", given: ["Eve"], family: "Other", mrn: "W1")])
    #expect(
        refusal(store, bundle)
            == .patientClash(
                file: "bundle.json",
                clash: .mrnHeldByOtherPatient(mrn: "W1", bundleID: "p1", storedID: nil)
            )
    )
    #expect(try store.chart(mrn: "W1").patient.given == "Typed")
}

@Test func importBundle_twoPatientsWithOneIDOrOneMRN_isRefused() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let store = try SQLiteRecordStore(home: home.path)
    let sameID = Bundles.bundle([
        Bundles.patient("p1", given: ["Ada"], family: "Lovelace", mrn: "M1"),
        Bundles.patient("p1", given: ["Grace"], family: "Hopper", mrn: "M2"),
    ])
    #expect(refusal(store, sameID) == .patientClash(file: "bundle.json", clash: .sameIDInBundle(id: "p1")))
    let sameMRN = Bundles.bundle([
        Bundles.patient("p1", given: ["Ada"], family: "Lovelace", mrn: "M1"),
        Bundles.patient("p2", given: ["Grace"], family: "Hopper", mrn: "m1"),
    ])
    #expect(
        refusal(store, sameMRN)
            == .patientClash(file: "bundle.json", clash: .sameMRNInBundle(mrn: "m1", firstID: "p1", secondID: "p2"))
    )
    #expect(try store.find("lovelace").matches.isEmpty && store.find("hopper").matches.isEmpty)
    // One Patient whose fullUrl is its own `Patient/id` is not two Patients.
    var selfNamed = Bundles.patient("p9", given: ["Ada"], family: "Lovelace", mrn: "M9")
    selfNamed["fullUrl"] = "Patient/p9"
    try store.importing(Bundles.bundle([selfNamed, Bundles.condition("p9")]))
    #expect(try store.chart(mrn: "M9").problems.count == 1)
}

@Test func importBundle_constraintErrorFromTheDatabase_isMappedToTheFile_exit65() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let store = try SQLiteRecordStore(home: home.path)
    // A rule the writer does not check for: the database is the one to refuse.
    try store.write { db in try db.execute("CREATE UNIQUE INDEX test_one_problem ON problem(patient_id)") }
    let bundle = Bundles.bundle([
        Bundles.patient("p1", given: ["Ada"], family: "Lovelace", mrn: "M1"), Bundles.condition("p1"),
        Bundles.condition("p1"),
    ])
    let error = refusal(store, bundle)
    #expect(error == .bundleConflict(file: "bundle.json", constraint: "UNIQUE constraint failed: problem.patient_id"))
    #expect(error?.exitStatus == .dataError)
    #expect(error?.description.hasPrefix("bundle.json: the bundle conflicts with the stored records") == true)
    #expect(try store.lookUp(mrn: "M1") == nil)
}

@Test func importBundle_referenceToAPatientLaterInTheBundle_resolves() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let store = try SQLiteRecordStore(home: home.path)
    try store.importing(
        Bundles.bundle([
            Bundles.condition("p1"),
            Bundles.observation("p1", code: "8867-4", display: "Heart rate", value: 72, unit: "/min"),
            Bundles.patient("p1", given: ["Ada"], family: "Lovelace", mrn: "M1"),
        ])
    )
    let chart = try store.chart(mrn: "M1")
    #expect(chart.problems.count == 1 && chart.observations.count == 1)
}

@Test func importBundle_fromAFile_streamsIt_andMatchesTheInMemoryImport() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let store = try SQLiteRecordStore(home: home.path)
    let path = home.path + "/a.json"
    try Bundles.complete("p1", given: ["Ada"], family: "Lovelace", mrn: "M1").write(to: URL(fileURLWithPath: path))
    var report = ImportReport()
    try FHIRImporter(store: store).importBundle(atPath: path, into: &report)
    #expect(report.bundles == 1 && report.patients == 1)
    #expect(report.imported["Observation"] == 2 && report.skipped["Claim"] == 2)
    #expect(try store.chart(mrn: "M1").observations.count == 3)
    #expect(throws: StoreError.unreadable(path: home.path + "/none.json")) {
        try FHIRImporter(store: store).importBundle(atPath: home.path + "/none.json", into: &report)
    }
}

@Test func check_readsABundleWithoutAStore_forTheFuzzer() throws {
    let report = try FHIRImporter.check(Bundles.complete("p1", given: ["Ada"], family: "Lovelace"), file: "a.json")
    #expect(report.patients == 1 && report.imported["Observation"] == 2)
    #expect(throws: StoreError.self) { try FHIRImporter.check(Data("{\"resourceType\":\"Bundle\",".utf8), file: "b") }
}

/// Two stored patients with the same FHIR id (`fhir_id` is not unique): an entry that names it
/// goes to the first added, the lowest row id, whatever order the rows were written in.
@Test func importBundle_entryForASharedFHIRID_goesToTheLowestPatientID() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let store = try SQLiteRecordStore(home: home.path)
    try store.write { db in
        for (id, mrn) in [(7, "B7"), (3, "A3")] {
            try db.execute(
                """
                INSERT INTO patient (id, mrn, fhir_id, given, family, birth_date, sex, phone, address, name_words)
                VALUES (?, ?, 'shared', 'Ada', 'Lovelace', '1815-12-10', 'female', '', '', 'ada lovelace')
                """,
                [.integer(id), .text(mrn)]
            )
        }
    }
    try store.importing(Bundles.bundle([Bundles.condition("shared")]))
    #expect(try store.chart(mrn: "A3").problems.count == 1)
    #expect(try store.chart(mrn: "B7").problems.isEmpty)
}
