import FHIRTestSupport
import Foundation
import Testing

@testable import WardRecords

/// The results of `Bundles.everyKind`'s panel, with the values of the Observations it refers to.
private let panelResults = [
    ReportResult(name: "Glucose", value: 88, unit: "mg/dL"),
    ReportResult(name: "Urea Nitrogen", value: 12, unit: "mg/dL"),
]

/// Immunizations, procedures, care plans, diagnostic reports, social history and surveys, and
/// structured dosage: parsed as Synthea writes them, stored, and read back.
@Suite struct CareRecordsImportTests {
    private func imported(_ entries: [[String: Any]]) throws -> (TemporaryHome, SQLiteRecordStore, ImportReport) {
        let home = TemporaryHome()
        let store = try SQLiteRecordStore(home: home.path)
        var report = ImportReport()
        try FHIRImporter(store: store).importBundle(Bundles.bundle(entries), file: "a.json", into: &report)
        return (home, store, report)
    }

    private static func day(_ text: String) -> Date {
        Date(timeIntervalSince1970: TimeInterval(FHIRDate.seconds(text)!))
    }

    @Test func everyKind_isImported_countedAndReadBack() throws {
        let (home, store, report) = try imported(Bundles.everyKind("p1", given: ["Ada"], family: "Lovelace", mrn: "M1"))
        defer { home.remove() }
        #expect(
            report.imported == [
                "Patient": 1, "AllergyIntolerance": 1, "Condition": 2, "MedicationRequest": 2, "Encounter": 1,
                "Observation": 6, "Immunization": 2, "Procedure": 1, "CarePlan": 2, "DiagnosticReport": 1,
            ]
        )
        #expect(report.skipped == ["Claim": 1, "CareTeam": 1])
        let chart = try store.chart(mrn: "M1")
        #expect(
            chart.immunizations == [
                Immunization(
                    code: "140",
                    vaccine: "Influenza, seasonal, injectable, preservative free",
                    status: "completed",
                    date: Self.day("2015-07-02T09:49:55-04:00"),
                    system: "http://hl7.org/fhir/sid/cvx"
                ),
                Immunization(
                    code: "140",
                    vaccine: "Td (adult) preservative free",
                    status: "completed",
                    date: Self.day("2016-03-04T05:06:07-05:00"),
                    system: "http://hl7.org/fhir/sid/cvx"
                ),
            ]
        )
        // The reason is a bare reference to a Condition of the bundle: named by that Condition.
        #expect(
            chart.procedures == [
                Procedure(
                    code: "430193006",
                    display: "Screening for depression",
                    reason: "Hypertension",
                    status: "completed",
                    performed: Self.day("2016-01-02T03:04:05-05:00"),
                    system: "http://snomed.info/sct"
                )
            ]
        )
        #expect(
            chart.carePlans == [
                CarePlan(
                    category: "Diabetes self management plan",
                    activities: ["Diabetic diet", "Exercise therapy"],
                    status: "active",
                    start: Self.day("2012-01-02T03:04:05-05:00")
                ),
                CarePlan(
                    category: "Lifestyle education regarding hypertension",
                    activities: ["Low salt diet"],
                    status: "completed",
                    start: Self.day("2012-01-02T03:04:05-05:00"),
                    end: Self.day("2014-01-01T00:00:00Z")
                ),
            ]
        )
        #expect(
            chart.reports == [
                DiagnosticReport(
                    code: "51990-0",
                    name: "Basic metabolic panel - Blood",
                    status: "final",
                    date: Self.day("2016-01-02T03:04:05-05:00"),
                    results: panelResults,
                    system: "http://loinc.org"
                )
            ]
        )
        #expect(chart.socialHistory.map(\.text) == ["Never smoked tobacco"])
        #expect(chart.surveys.map(\.display) == ["Patient Health Questionnaire-2 score"])
        #expect(chart.labs.map(\.display) == ["Glucose", "Urea Nitrogen"])
        #expect(chart.medications.map(\.dosage).sorted() == ["1, Oral, twice a day", "twice daily"])
    }

    @Test func optionalFieldsMissing_importEmpty_andReportsWithoutDisplays_nameTheirObservations() throws {
        var immunization = Bundles.immunization("p1", date: nil, status: nil)
        var resource = immunization["resource"] as! [String: Any]
        resource.removeValue(forKey: "encounter")
        immunization["resource"] = resource
        let (home, store, _) = try imported([
            Bundles.patient("p1", given: ["Ada"], family: "Lovelace", mrn: "M1"),
            immunization,
            Bundles.procedure("p1", period: false),
            Bundles.procedure("p1", display: "Appendectomy", reason: ("nowhere", "Appendicitis")),
            Bundles.carePlan("p1", activities: []),
            // The report comes before the Observations it names: the first pass knows them.
            Bundles.diagnosticReport("p1", name: "Lipid panel", results: [("p1-chol", "ignored")], displays: false),
            Bundles.diagnosticReport("p1", name: "Chest X-ray", results: [], conclusion: "No acute findings."),
            Bundles.labResult("p1", id: "p1-chol", display: "Cholesterol", value: 180),
        ])
        defer { home.remove() }
        let chart = try store.chart(mrn: "M1")
        #expect(chart.immunizations.map(\.status) == [""] && chart.immunizations.first?.date == nil)
        #expect(chart.procedures.map(\.reason) == ["", "Appendicitis"])
        #expect(chart.procedures.first?.performed == Self.day("2016-01-02T03:04:05-05:00"))
        #expect(chart.carePlans.map(\.activities) == [[]])
        #expect(chart.reports.map(\.results) == [[ReportResult(name: "Cholesterol", value: 180, unit: "mg/dL")], []])
        #expect(chart.reports.map(\.conclusion) == ["", "No acute findings."])
    }

    @Test func requiredCodes_missing_areNamedByPath() throws {
        let home = TemporaryHome()
        defer { home.remove() }
        let store = try SQLiteRecordStore(home: home.path)
        var immunization = Bundles.immunization("p1")
        var resource = immunization["resource"] as! [String: Any]
        resource.removeValue(forKey: "vaccineCode")
        immunization["resource"] = resource
        var report = ImportReport()
        #expect(
            throws: StoreError.malformedBundle(
                file: "b.json",
                path: "entry[1].resource.vaccineCode",
                problem: "required but missing"
            )
        ) {
            try FHIRImporter(store: store).importBundle(
                Bundles.bundle([Bundles.patient("p1", given: ["Ada"], family: "Lovelace"), immunization]),
                file: "b.json",
                into: &report
            )
        }
        #expect(try store.lookUp(mrn: "p1") == nil)
    }

    @Test func encounterReason_fromReasonReference_whenThereIsNoReasonCode() throws {
        var encounter = Bundles.encounter("p1")
        var resource = encounter["resource"] as! [String: Any]
        resource["reasonReference"] = [["reference": "urn:uuid:p1-flu"]]
        encounter["resource"] = resource
        let (home, store, _) = try imported([
            Bundles.patient("p1", given: ["Ada"], family: "Lovelace", mrn: "M1"), encounter,
            Bundles.condition("p1", id: "p1-flu", display: "Influenza"),
        ])
        defer { home.remove() }
        #expect(try store.chart(mrn: "M1").encounters.map(\.reason) == ["Influenza"])
    }

    @Test func dosage_isWrittenFromItsStructure_whenItHasNoText() throws {
        func dosage(_ json: String) throws -> String {
            let value = try JSONStreamReader(data: Data(json.utf8)).value()
            return try FHIRBundle.dosage(JSONCursor(value))
        }
        #expect(try dosage(#"{"text": "take with food", "timing": {"repeat": {"frequency": 2}}}"#) == "take with food")
        #expect(
            try dosage(
                #"{"timing": {"repeat": {"frequency": 1, "period": 1.0, "periodUnit": "d"}}, "asNeededBoolean": false, "#
                    + #""doseAndRate": [{"doseQuantity": {"value": 1.0}}]}"#
            ) == "1, once a day"
        )
        #expect(
            try dosage(
                #"{"timing": {"repeat": {"frequency": 1, "period": 8, "periodUnit": "h"}}, "asNeededBoolean": true, "#
                    + #""route": {"coding": [{"display": "Oral"}]}, "#
                    + #""doseAndRate": [{"doseQuantity": {"value": 0.5, "unit": "mg"}}]}"#
            ) == "0.5 mg, Oral, once every 8 hours, as needed"
        )
        #expect(
            try dosage(#"{"timing": {"repeat": {"frequency": 3, "period": 2, "periodUnit": "wk"}}}"#)
                == "3 times every 2 weeks"
        )
        #expect(try dosage(#"{"asNeededBoolean": true}"#) == "as needed")
        #expect(try dosage(#"{"sequence": 1}"#) == "")
    }

    @Test func lists_roundTripEveryCharacter_includingNUL() throws {
        let (home, store, _) = try imported([
            Bundles.patient("p1", given: ["Ada"], family: "Lovelace", mrn: "M1"),
            Bundles.carePlan("p1", activities: ["nul\u{0}byte", "quote \" and ; semicolon", "\u{1B}[2J"]),
        ])
        defer { home.remove() }
        #expect(
            try store.chart(mrn: "M1").carePlans.first?.activities == [
                "nul\u{0}byte", "quote \" and ; semicolon", "\u{1B}[2J",
            ]
        )
    }

    @Test func reimport_replacesTheNewRecords_andKeepsNotes() throws {
        let entries = Bundles.everyKind("p1", given: ["Ada"], family: "Lovelace", mrn: "M1")
        let (home, store, _) = try imported(entries)
        defer { home.remove() }
        _ = try store.addNote(mrn: "M1", author: "alice", text: "seen", at: Date(timeIntervalSince1970: 0))
        try store.importing(Bundles.bundle(entries))
        let chart = try store.chart(mrn: "M1")
        #expect(chart.immunizations.count == 2 && chart.procedures.count == 1 && chart.carePlans.count == 2)
        #expect(chart.reports.count == 1 && chart.notes.count == 1)
    }

    @Test func wipe_emptiesTheNewSections() throws {
        let (home, store, _) = try imported(Bundles.everyKind("p1", given: ["Ada"], family: "Lovelace", mrn: "M1"))
        defer { home.remove() }
        let chart = try store.chart(mrn: "M1")
        #expect(!chart.immunizations.isEmpty && !chart.reports.isEmpty && !chart.socialHistory.isEmpty)
        chart.wipe()
        #expect(chart.immunizations.isEmpty && chart.procedures.isEmpty && chart.carePlans.isEmpty)
        #expect(chart.reports.isEmpty && chart.socialHistory.isEmpty && chart.surveys.isEmpty)
    }

    @Test func aReportsResults_carryTheirObservationsValues_codedOrNumber_andANameAloneWhenNotImported() throws {
        var covid = Bundles.labResult("p1", id: "p1-covid", display: "SARS-CoV-2 RNA Pnl Resp NAA+probe", value: 0)
        var resource = covid["resource"] as! [String: Any]
        resource.removeValue(forKey: "valueQuantity")
        resource["valueCodeableConcept"] = ["coding": [["code": "260373001", "display": "Detected (qualifier value)"]]]
        covid["resource"] = resource
        let (home, store, _) = try imported([
            Bundles.patient("p1", given: ["Ada"], family: "Lovelace", mrn: "M1"),
            Bundles.diagnosticReport(
                "p1",
                name: "SARS-CoV-2 panel",
                results: [("p1-covid", "SARS-CoV-2 RNA Pnl Resp NAA+probe"), ("elsewhere", "Influenza A RNA")]
            ),
            covid,
        ])
        defer { home.remove() }
        #expect(
            try store.chart(mrn: "M1").reports.first?.results == [
                ReportResult(name: "SARS-CoV-2 RNA Pnl Resp NAA+probe", text: "Detected (qualifier value)"),
                "Influenza A RNA",
            ]
        )
    }

    @Test func resultsColumn_readsRowsWrittenBeforeValues_andWritesANameAloneAsBefore() {
        #expect(RecordsLayout.results(#"["Glucose","Urea"]"#) == ["Glucose", "Urea"])
        #expect(
            RecordsLayout.results(#"["A",{"name":"B","value":5.5,"unit":"mg/dL"},{"name":"C","text":"Detected"}]"#)
                == ["A", ReportResult(name: "B", value: 5.5, unit: "mg/dL"), ReportResult(name: "C", text: "Detected")]
        )
        #expect(RecordsLayout.resultsText(["Glucose"]) == #"["Glucose"]"#)
        #expect(RecordsLayout.results("not json") == [])
    }
}

@Suite struct CareRecordsMigrationTests {
    /// A records file as the Ward before the care-record sections left it: both earlier migrations, a patient
    /// with an allergy, and no table for the new records.
    @Test func aDatabaseFromTheEarlierSchema_upgrades_andKeepsItsCharts() throws {
        let home = TemporaryHome()
        defer { home.remove() }
        let queue = try SQLiteConnection(path: home.recordsPath)
        try SQLiteSchema.migrator.migrate(queue, upTo: SQLiteSchema.indexesMigration)
        try queue.write { db in
            try db.execute(
                """
                INSERT INTO patient (id, mrn, fhir_id, given, family, birth_date, sex, phone, address)
                VALUES (1, 'M1', 'p1', 'Ada', 'Lovelace', '1815-12-10', 'female', '', '');
                INSERT INTO allergy (patient_id, substance, code, criticality, category, status)
                VALUES (1, 'Peanut', '1', 'high', 'food', 'active');
                """
            )
            #expect(try !db.tableExists("immunization"))
        }
        queue.close()
        chmod(home.recordsPath, 0o600)  // as Ward created it; SQLite made this one 0644
        let store = try SQLiteRecordStore(path: home.recordsPath)
        defer { store.close() }
        let applied = try store.read { try SQLiteSchema.migrator.appliedIdentifiers($0) }
        #expect(applied.contains(SQLiteSchema.careRecordsMigration))
        let before = try store.chart(mrn: "M1")
        #expect(before.allergies.map(\.substance) == ["Peanut"])
        #expect(before.immunizations.isEmpty && before.reports.isEmpty)
        // The same patient re-imported gains the new records.
        try store.importing(Bundles.bundle(Bundles.everyKind("p1", given: ["Ada"], family: "Lovelace", mrn: "M1")))
        let after = try store.chart(mrn: "M1")
        #expect(after.immunizations.count == 2 && after.carePlans.count == 2 && after.reports.count == 1)
    }
}

@Suite struct NDJSONImportTests {
    /// Two patients; resource ids are made afresh on each call, and nothing stored depends on them.
    private static var patients: [[String: Any]] {
        Bundles.everyKind("p1", given: ["Ada"], family: "Lovelace", mrn: "M1")
            + Array(Bundles.everyKind("p2", given: ["Grace"], family: "Hopper", mrn: "M2").dropLast(2))
    }

    /// Writes `files` into a new directory `export` of `home`.
    private func write(_ files: [String: Data], in home: TemporaryHome) throws -> String {
        let directory = home.path + "/export"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for (name, data) in files { try data.write(to: URL(fileURLWithPath: directory + "/" + name)) }
        return directory
    }

    @Test func anExport_importsTheSamePatients_toTheSameCounts_asTheBundle() throws {
        let bundleHome = TemporaryHome()
        let exportHome = TemporaryHome()
        defer {
            bundleHome.remove()
            exportHome.remove()
        }
        let bundleFile = bundleHome.path + "/bundle.json"
        try Bundles.bundle(Self.patients).write(to: URL(fileURLWithPath: bundleFile))
        let bundleStore = try SQLiteRecordStore(home: bundleHome.path)
        let fromBundle = FHIRImporter(store: bundleStore).importBundles(at: [bundleFile])

        let files = Bundles.ndjson(Self.patients)
        #expect(files.keys.contains("Patient.ndjson") && files.keys.contains("Immunization.ndjson"))
        let directory = try write(files, in: exportHome)
        let exportStore = try SQLiteRecordStore(home: exportHome.path)
        let fromExport = FHIRImporter(store: exportStore).importBundles(at: [directory])

        #expect(fromExport.failures.isEmpty && fromExport.exitStatus == .success)
        #expect(fromExport.exports == 1 && fromExport.exportsImported == 1 && fromExport.files == 0)
        #expect(fromExport.patients == 2 && fromExport.patients == fromBundle.patients)
        #expect(fromExport.imported == fromBundle.imported && fromExport.skipped == fromBundle.skipped)
        #expect(fromExport.headline == "Imported 1 of 1 NDJSON exports")
        for mrn in ["M1", "M2"] {
            let a = try bundleStore.chart(mrn: mrn)
            let b = try exportStore.chart(mrn: mrn)
            #expect(a.patient == b.patient && a.allergies == b.allergies && a.problems == b.problems)
            #expect(a.medications == b.medications && a.observations == b.observations)
            #expect(a.encounters == b.encounters && a.immunizations == b.immunizations)
            #expect(a.procedures == b.procedures && a.carePlans == b.carePlans && a.reports == b.reports)
        }
        #expect(try exportStore.chart(mrn: "M1").procedures.first?.reason == "Hypertension")
        #expect(try exportStore.chart(mrn: "M2").reports.first?.results == panelResults)
    }

    @Test func aBadLine_namesFileAndLine_andImportsNothingOfTheExport() throws {
        let home = TemporaryHome()
        defer { home.remove() }
        var files = Bundles.ndjson(Self.patients)
        var observations = files["Observation.ndjson"]!
        observations.append(
            Data(
                (#"{"resourceType": "Observation", "subject": {"reference": 42}, "valueString": "x", "code": {}, "#
                    + #""effectiveDateTime": "2020-01-01T00:00:00Z"}"#).utf8
            )
        )
        let lineCount = observations.split(separator: UInt8(ascii: "\n")).count
        files["Observation.ndjson"] = observations
        files["Procedure.ndjson"]!.append(Data("\n   \n".utf8))  // blank lines are allowed
        let directory = try write(files, in: home)
        let store = try SQLiteRecordStore(home: home.path)
        let report = FHIRImporter(store: store).importBundles(at: [directory])
        #expect(
            report.failures == [
                .malformedLine(
                    file: directory + "/Observation.ndjson",
                    line: lineCount,
                    path: "subject.reference",
                    problem: "expected a string"
                )
            ]
        )
        #expect(
            report.failures.first?.description
                == "\(directory)/Observation.ndjson:\(lineCount): subject.reference: expected a string; "
                + "nothing of this export was imported"
        )
        #expect(report.exitStatus == .dataError && report.exportsImported == 0 && report.patients == 0)
        #expect(try store.lookUp(mrn: "M1") == nil && store.lookUp(mrn: "M2") == nil)
    }

    @Test func aLineThatIsNotJSON_orHoldsTwoValues_isRefusedAtItsLine() throws {
        for (line, problem) in [
            ("{not json", "not valid JSON at byte 1: "),
            (#"{"resourceType": "Claim"} {"resourceType": "Claim"}"#, "not valid JSON at byte "),
        ] {
            let home = TemporaryHome()
            defer { home.remove() }
            var files = Bundles.ndjson(Self.patients)
            files["Claim.ndjson"] = Data(("\n" + line + "\n").utf8)
            let directory = try write(files, in: home)
            let store = try SQLiteRecordStore(home: home.path)
            let report = FHIRImporter(store: store).importBundles(at: [directory])
            guard case .malformedLine(let file, 2, "(root)", let text)? = report.failures.first else {
                Issue.record("\(line): \(report.failures)")
                continue
            }
            #expect(file == directory + "/Claim.ndjson" && text.hasPrefix(problem))
            #expect(try store.lookUp(mrn: "M1") == nil)
        }
    }

    @Test func twoPatientsWithOneID_areAClash_namedByFileAndLine() throws {
        let home = TemporaryHome()
        defer { home.remove() }
        var files = Bundles.ndjson(Self.patients)
        files["Patient.ndjson"]!.append(Data(#"{"resourceType": "Patient", "id": "p1"}"#.utf8))
        let directory = try write(files, in: home)
        let store = try SQLiteRecordStore(home: home.path)
        let report = FHIRImporter(store: store).importBundles(at: [directory])
        let error = StoreError.patientClashInExport(
            file: directory + "/Patient.ndjson:3",
            clash: .sameIDInBundle(id: "p1")
        )
        #expect(report.failures == [error])
        #expect(error.description.hasSuffix("; nothing of this export was imported"))
        #expect(report.exitStatus == .dataError)
        #expect(try store.lookUp(mrn: "M1") == nil)
    }

    /// Compresses `data` with the system's gzip.
    private func gzip(_ data: Data, _ home: TemporaryHome) throws -> Data {
        let file = home.path + "/plain-\(UUID().uuidString)"
        try data.write(to: URL(fileURLWithPath: file))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/gzip")
        process.arguments = ["-n", file]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "gzip (Debian package gzip)")
        return try Data(contentsOf: URL(fileURLWithPath: file + ".gz"))
    }

    @Test func aGzippedExport_importsAsThePlainOne_evenInConcatenatedMembers() throws {
        let home = TemporaryHome()
        defer { home.remove() }
        var files: [String: Data] = [:]
        for (name, data) in Bundles.ndjson(Self.patients) {
            // Observation.ndjson.gz as two gzip members, as `cat a.gz b.gz` writes it.
            if name == "Observation.ndjson" {
                let lines = data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
                let half = lines.count / 2
                let first = Data(lines[..<half].joined(separator: [UInt8(ascii: "\n")]) + [UInt8(ascii: "\n")])
                let second = Data(lines[half...].joined(separator: [UInt8(ascii: "\n")]))
                files[name + ".gz"] = try gzip(first, home) + gzip(second, home)
            } else {
                files[name + ".gz"] = try gzip(data, home)
            }
        }
        let directory = try write(files, in: home)
        let store = try SQLiteRecordStore(home: home.path)
        let report = FHIRImporter(store: store).importBundles(at: [directory])
        #expect(report.failures.isEmpty && report.exportsImported == 1 && report.patients == 2)
        #expect(report.imported["Observation"] == 12 && report.imported["Immunization"] == 4)
        #expect(try store.chart(mrn: "M2").reports.first?.results == panelResults)
    }

    @Test func aGzipFileCutShort_orNotGzip_isRefusedAtTheLineItReached() throws {
        let home = TemporaryHome()
        defer { home.remove() }
        let plain = Bundles.ndjson(Self.patients)
        let whole = try gzip(plain["Observation.ndjson"]!, home)
        for (bytes, reason) in [
            (whole.prefix(whole.count - 10), "not valid gzip data: the file is cut short"),
            (Data("not gzip at all\n".utf8), "not valid gzip data: incorrect header check"),
        ] {
            var files = plain
            files.removeValue(forKey: "Observation.ndjson")
            files["Observation.ndjson.gz"] = Data(bytes)
            let directory = try write(files, in: home)
            let store = try SQLiteRecordStore(home: home.path)
            defer { store.close() }
            let report = FHIRImporter(store: store).importBundles(at: [directory])
            guard case .malformedLine(let file, _, "(gzip)", let problem)? = report.failures.first else {
                Issue.record("\(report.failures)")
                continue
            }
            #expect(file == directory + "/Observation.ndjson.gz" && problem == reason)
            #expect(report.exitStatus == .dataError)
            #expect(try store.lookUp(mrn: "M1") == nil)
            try FileManager.default.removeItem(atPath: directory)
        }
    }

    @Test func ndjsonFilesNamedOnTheLine_areOneExport() throws {
        let home = TemporaryHome()
        defer { home.remove() }
        let directory = try write(Bundles.ndjson(Self.patients), in: home)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory).sorted().map { directory + "/" + $0 }
        let store = try SQLiteRecordStore(home: home.path)
        let report = FHIRImporter(store: store).importBundles(at: names)
        #expect(report.exports == 1 && report.exportsImported == 1 && report.patients == 2)
    }

    @Test func aDirectoryWithNothingToImport_isNoInput_andSaysWhy() throws {
        let home = TemporaryHome()
        defer { home.remove() }
        let directory = try write(["README": Data(), "Patient.ndjson.zip": Data([0x50, 0x4B])], in: home)
        let store = try SQLiteRecordStore(home: home.path)
        let report = FHIRImporter(store: store).importBundles(at: [directory])
        #expect(report.failures == [.nothingToImport(path: directory)])
        #expect(report.exitStatus == .noInput)
        #expect(report.headline == "Imported 0 of 0 bundles")
    }
}
