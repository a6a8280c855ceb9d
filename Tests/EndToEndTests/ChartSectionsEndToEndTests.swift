import Foundation
import Glibc
import Testing

/// The care-record sections through the real binary: a Synthea-shaped bundle with an immunization, a
/// procedure, a care plan, a diagnostic report, social history, a survey and a structured
/// dosage is imported with `ward import`, and each section is shown in a pseudo-terminal.
@Suite(.serialized) struct ChartSectionsEndToEndTests {
    static let mrn = "e2e-0001"

    /// One patient with every kind of record, as Synthea's FHIR R4 exporter writes each.
    static let bundle = #"""
        {"resourceType": "Bundle", "type": "transaction", "entry": [
          {"fullUrl": "urn:uuid:pat-1", "resource": {"resourceType": "Patient", "id": "pat-1",
            "identifier": [{"type": {"coding": [{"code": "MR"}]}, "value": "e2e-0001"}],
            "name": [{"use": "official", "given": ["Ada"], "family": "Lovelace"}],
            "gender": "female", "birthDate": "1970-03-04"}},
          {"fullUrl": "urn:uuid:cond-1", "resource": {"resourceType": "Condition", "id": "cond-1",
            "clinicalStatus": {"coding": [{"code": "active"}]},
            "code": {"coding": [{"system": "http://snomed.info/sct", "code": "59621000", "display": "Essential hypertension"}]},
            "subject": {"reference": "urn:uuid:pat-1"}, "onsetDateTime": "2012-01-02T03:04:05-05:00"}},
          {"fullUrl": "urn:uuid:imm-1", "resource": {"resourceType": "Immunization", "id": "imm-1", "status": "completed",
            "vaccineCode": {"coding": [{"system": "http://hl7.org/fhir/sid/cvx", "code": "140",
              "display": "Influenza, seasonal, injectable, preservative free"}],
              "text": "Influenza, seasonal, injectable, preservative free"},
            "patient": {"reference": "urn:uuid:pat-1"}, "occurrenceDateTime": "2015-07-02T09:49:55-04:00",
            "primarySource": true}},
          {"fullUrl": "urn:uuid:proc-1", "resource": {"resourceType": "Procedure", "id": "proc-1", "status": "completed",
            "code": {"coding": [{"system": "http://snomed.info/sct", "code": "710824005",
              "display": "Assessment of health and social care needs"}]},
            "subject": {"reference": "urn:uuid:pat-1"},
            "performedPeriod": {"start": "2016-01-02T03:04:05-05:00", "end": "2016-01-02T03:19:05-05:00"},
            "reasonReference": [{"reference": "urn:uuid:cond-1"}]}},
          {"fullUrl": "urn:uuid:cp-1", "resource": {"resourceType": "CarePlan", "id": "cp-1", "status": "active",
            "intent": "order",
            "category": [{"coding": [{"system": "http://hl7.org/fhir/us/core/CodeSystem/careplan-category",
              "code": "assess-plan"}]}, {"coding": [{"system": "http://snomed.info/sct", "code": "443402002",
              "display": "Lifestyle education regarding hypertension"}],
              "text": "Lifestyle education regarding hypertension"}],
            "subject": {"reference": "urn:uuid:pat-1"}, "period": {"start": "2012-01-02T03:04:05-05:00"},
            "activity": [{"detail": {"code": {"coding": [{"code": "386463000", "display": "Prescribed activity/exercise education"}]},
              "status": "in-progress"}}, {"detail": {"code": {"coding": [{"code": "413473000",
              "display": "Counseling about alcohol consumption"}]}, "status": "in-progress"}}]}},
          {"fullUrl": "urn:uuid:obs-1", "resource": {"resourceType": "Observation", "id": "obs-1", "status": "final",
            "category": [{"coding": [{"code": "laboratory"}]}],
            "code": {"coding": [{"system": "http://loinc.org", "code": "2339-0", "display": "Glucose"}]},
            "subject": {"reference": "urn:uuid:pat-1"}, "effectiveDateTime": "2016-01-02T03:04:05-05:00",
            "valueQuantity": {"value": 88, "unit": "mg/dL"}}},
          {"fullUrl": "urn:uuid:dr-1", "resource": {"resourceType": "DiagnosticReport", "id": "dr-1", "status": "final",
            "code": {"coding": [{"system": "http://loinc.org", "code": "51990-0", "display": "Basic metabolic panel - Blood"}]},
            "subject": {"reference": "urn:uuid:pat-1"}, "effectiveDateTime": "2016-01-02T03:04:05-05:00",
            "result": [{"reference": "urn:uuid:obs-1", "display": "Glucose"}]}},
          {"fullUrl": "urn:uuid:obs-2", "resource": {"resourceType": "Observation", "id": "obs-2", "status": "final",
            "category": [{"coding": [{"code": "social-history"}]}],
            "code": {"coding": [{"system": "http://loinc.org", "code": "72166-2", "display": "Tobacco smoking status"}]},
            "subject": {"reference": "urn:uuid:pat-1"}, "effectiveDateTime": "2016-01-02T03:04:05-05:00",
            "valueCodeableConcept": {"coding": [{"code": "266919005", "display": "Never smoked tobacco"}]}}},
          {"fullUrl": "urn:uuid:obs-3", "resource": {"resourceType": "Observation", "id": "obs-3", "status": "final",
            "category": [{"coding": [{"code": "survey"}]}],
            "code": {"coding": [{"system": "http://loinc.org", "code": "55758-7",
              "display": "Patient Health Questionnaire-2 score"}]},
            "subject": {"reference": "urn:uuid:pat-1"}, "effectiveDateTime": "2016-01-02T03:04:05-05:00",
            "valueQuantity": {"value": 2, "unit": "{score}"}}},
          {"fullUrl": "urn:uuid:med-1", "resource": {"resourceType": "MedicationRequest", "id": "med-1",
            "status": "active", "intent": "order",
            "medicationCodeableConcept": {"coding": [{"code": "310798", "display": "Hydrochlorothiazide 25 MG Oral Tablet"}]},
            "subject": {"reference": "urn:uuid:pat-1"}, "authoredOn": "2012-01-02T03:04:05-05:00",
            "dosageInstruction": [{"sequence": 1, "timing": {"repeat": {"frequency": 1, "period": 1.0, "periodUnit": "d"}},
              "asNeededBoolean": false, "doseAndRate": [{"doseQuantity": {"value": 1.0}}]}]}},
          {"fullUrl": "urn:uuid:ct-1", "resource": {"resourceType": "CareTeam", "id": "ct-1", "status": "active"}}
        ]}
        """#

    /// What each section shows of the bundle.
    static let sections: [(section: String, words: [String])] = [
        ("immunizations", ["VACCINE", "Influenza, seasonal, injectable", "2015-07-02", "completed"]),
        ("procedures", ["Assessment of health and social care needs", "Essential hypertension", "2016-01-02"]),
        ("reports", ["Basic metabolic panel - Blood", "Glucose", "final"]),
        ("social", ["Tobacco smoking status", "Never smoked tobacco"]),
        ("surveys", ["Patient Health Questionnaire-2 score", "{score}"]),
        ("meds", ["Hydrochlorothiazide", "1, once a day"]),
    ]

    @Test func aSyntheaBundle_importsEverySection_andEachIsShown() throws {
        let t = try TerminalHarness(columns: 160, rows: 50)
        let file = t.directory.appendingPathComponent("synthea.json")
        try Data(Self.bundle.utf8).write(to: file)
        let environment = ["WARD_HOME": t.home.path, "WARD_SITE": t.siteFile.path, "HOME": t.directory.path]
        let imported = try TerminalHarness.runToEnd(
            ["import", file.path],
            environment: environment,
            capturingIn: t.directory
        )
        let summary = String(decoding: imported.err, as: UTF8.self)
        #expect(imported.status == 0, "\(summary)")
        #expect(summary.contains("Immunization 1") && summary.contains("Procedure 1") && summary.contains("CarePlan 1"))
        #expect(summary.contains("DiagnosticReport 1") && summary.contains("Skipped: CareTeam 1"))

        try t.signOn()
        try t.enter("open \(Self.mrn)")
        try t.waitFor("Opened \(Self.mrn)")
        try t.enter("show")
        try t.waitFor("Immunizations")
        let counts = try t.screen()
        for label in ["Immunizations", "Procedures", "Care plans", "Reports", "Social history", "Surveys"] {
            #expect(counts.contains(label), "summary: \(label)")
        }
        for (section, words) in Self.sections {
            try t.enter("show \(section)")
            try t.waitFor(words[0])
            let screen = try t.screen()
            for word in words { #expect(screen.contains(word), "\(section): \(word)") }
        }
        // Tab completes the section's name.
        try t.type("show car")
        try t.press("Tab")
        try t.press("Enter")
        try t.waitFor("ACTIVITIES")
        let plans = try t.screen()
        #expect(plans.contains("Lifestyle education regarding hypertension"))
        #expect(plans.contains("Prescribed activity/exercise education; Counseling about alcohol consumption"))
        try t.enter("help show")
        try t.waitFor("Care plans: category, activities, period, status.")
        try t.press("C-d")
        #expect(try t.waitForExit() == 0)
    }

    @Test func anNDJSONExport_imports_andABadLine_exits65_namingFileAndLine() throws {
        let t = try TerminalHarness()
        let environment = ["WARD_HOME": t.home.path, "WARD_SITE": t.siteFile.path, "HOME": t.directory.path]
        let export = t.directory.appendingPathComponent("export")
        try FileManager.default.createDirectory(at: export, withIntermediateDirectories: true)
        let patient = #"{"resourceType": "Patient", "id": "pat-2", "name": [{"given": ["Grace"], "family": "Hopper"}]}"#
        let immunization =
            #"{"resourceType": "Immunization", "status": "completed", "patient": {"reference": "Patient/pat-2"}, "#
            + #""vaccineCode": {"coding": [{"code": "140", "display": "Influenza"}]}, "occurrenceDateTime": "2015-07-02"}"#
        try Data((patient + "\n").utf8).write(to: export.appendingPathComponent("Patient.ndjson"))
        try Data((immunization + "\n" + immunization + "\n").utf8).write(
            to: export.appendingPathComponent("Immunization.ndjson")
        )
        let good = try TerminalHarness.runToEnd(
            ["import", export.path],
            environment: environment,
            capturingIn: t.directory
        )
        let goodText = String(decoding: good.err, as: UTF8.self)
        #expect(good.status == 0, "\(goodText)")
        #expect(goodText.contains("Imported 1 of 1 NDJSON exports: 1 patient") && goodText.contains("Immunization 2"))

        let bad = t.directory.appendingPathComponent("bad")
        try FileManager.default.createDirectory(at: bad, withIntermediateDirectories: true)
        try Data((#"{"resourceType": "Patient", "id": "pat-3"}"# + "\n").utf8).write(
            to: bad.appendingPathComponent("Patient.ndjson")
        )
        try Data((immunization + "\n{\"resourceType\": \n").utf8).write(
            to: bad.appendingPathComponent("Immunization.ndjson")
        )
        let refused = try TerminalHarness.runToEnd(
            ["import", bad.path],
            environment: environment,
            capturingIn: t.directory
        )
        let refusedText = String(decoding: refused.err, as: UTF8.self)
        #expect(refused.status == 65)
        #expect(
            refusedText.contains("ward: \(bad.path)/Immunization.ndjson:2: (root): not valid JSON"),
            "\(refusedText)"
        )
        #expect(refusedText.contains("nothing of this export was imported"))
        let count = try TerminalHarness.run(
            "/usr/bin/sqlite3",
            ["-readonly", t.home.path + "/records.sqlite", "SELECT count(*) FROM patient WHERE fhir_id = 'pat-3'"]
        )
        #expect(count.trimmingCharacters(in: .whitespacesAndNewlines) == "0")

        let empty = t.directory.appendingPathComponent("empty")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let nothing = try TerminalHarness.runToEnd(
            ["import", empty.path],
            environment: environment,
            capturingIn: t.directory
        )
        #expect(nothing.status == 66)
        #expect(
            String(decoding: nothing.err, as: UTF8.self).contains("no FHIR bundle (*.json) or bulk-data NDJSON file")
        )
    }

    /// The wipe proof of `WipeCoreImageTests`, for the new sections: a canary in a vaccine, a
    /// procedure, a care plan's activity, a report's result, a social-history value and a
    /// structured dosage's route is in memory once each section was shown, and nowhere after a lock.
    @Test(.enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/gcore")))
    func afterALock_theNewSectionsTextIsNowhereInMemory() throws {
        let t = try TerminalHarness(columns: 160, rows: 50)
        let canaries = (0..<5).map { _ in "Zq" + WipeCoreImageTests.canary().dropFirst(2).prefix(10) }
        var bundle = Self.bundle
        for (name, canary) in zip(
            [
                "Influenza, seasonal, injectable, preservative free", "Assessment of health and social care needs",
                "Counseling about alcohol consumption", "Never smoked tobacco", "Basic metabolic panel - Blood",
            ],
            canaries
        ) {
            bundle = bundle.replacingOccurrences(of: name, with: canary)
        }
        let file = t.directory.appendingPathComponent("canary.json")
        try Data(bundle.utf8).write(to: file)
        let environment = ["WARD_HOME": t.home.path, "WARD_SITE": t.siteFile.path, "HOME": t.directory.path]
        let imported = try TerminalHarness.runToEnd(
            ["import", file.path],
            environment: environment,
            capturingIn: t.directory
        )
        #expect(imported.status == 0)
        try t.signOn()
        try t.enter("open \(Self.mrn)")
        try t.waitFor("Opened \(Self.mrn)")
        for section in ["immunizations", "procedures", "careplans", "social", "reports"] {
            try t.enter("show \(section) --all")
            try t.waitFor("show \(section) --all")
        }
        try t.waitFor(String(canaries[4]))
        let pid = try t.wardPID()
        let core = WipeCoreImageTests()
        let before = try core.coreImage(of: pid, in: t.directory)
        for canary in canaries {
            #expect(
                core.occurrences(of: String(canary), in: before) > 0,
                "control: \(canary) in memory before the lock"
            )
        }
        try t.enter("lock")
        try t.waitFor("Password for alice:")
        try t.waitUntilLocked()
        let after = try core.coreImage(of: pid, in: t.directory)
        for canary in canaries { #expect(core.occurrences(of: String(canary), in: after) == 0, "\(canary)") }
        try t.enter(TerminalHarness.password)
        try t.waitFor(TerminalHarness.chartPrompt(Self.mrn))  // the chart is open again (resume)
        try t.press("C-d")
        #expect(try t.waitForExit() == 0)
    }
}
