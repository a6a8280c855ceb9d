import Foundation
import Testing

@testable import WardRecords

@Test func importBundle_good_importsEveryKeptType_andCountsTheRest() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let store = try SQLiteRecordStore(home: home.path)
    var report = ImportReport()
    try FHIRImporter(store: store).importBundle(
        Bundles.complete("p1", given: ["Ada"], family: "Lovelace", mrn: "M1"), file: "a.json", into: &report)
    #expect(report.bundles == 1 && report.patients == 1 && report.failures.isEmpty)
    #expect(
        report.imported == [
            "Patient": 1, "AllergyIntolerance": 1, "Condition": 1, "MedicationRequest": 1, "Encounter": 1,
            "Observation": 2,
        ])
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
            file: "bad.json", path: "entry[3].resource.subject.reference", problem: "expected a string")
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
            file: "b.json", path: "entry[1].resource.subject.reference",
            problem: "refers to no Patient in this bundle or imported before")
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
        (Bundles.bundle([Bundles.patient("p1", given: ["A"], family: "B", birthDate: "03/04/1970")]), "entry[0].resource.birthDate"),
        (Bundles.bundle([Bundles.patient("p1", given: ["A"], family: "B", gender: "f")]), "entry[0].resource.gender"),
        (Bundles.bundle([["fullUrl": "urn:uuid:x"]]), "entry[0].resource"),
        (Bundles.bundle([Bundles.patient("p1", given: ["A"], family: "B"), Bundles.allergy("p1"), ["resource": ["code": [:]]]]), "entry[2].resource.resourceType"),
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
    try Bundles.complete("p1", given: ["Ada"], family: "Lovelace", mrn: "M1").write(to: URL(fileURLWithPath: inputs + "/a.json"))
    try Data("[]".utf8).write(to: URL(fileURLWithPath: inputs + "/b.json"))
    try Bundles.complete("p2", given: ["Grace"], family: "Hopper", mrn: "M2").write(to: URL(fileURLWithPath: inputs + "/nested/c.json"))
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
        ])
    #expect(report.sysexit == 65)
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
