import FHIRTestSupport
import Foundation
import Testing

/// A chart a clinician can read, through the real binary: a report's results with their values,
/// units in human form, the expanded view, the cover sheet, and the status filter.
@Suite(.serialized) struct ReadableChartEndToEndTests {
    /// A home with one imported patient, `RC0001`: a COVID-19 panel whose coded result says
    /// Detected, a basic panel with a glucose in mg/dL, a temperature in Cel, an active and a
    /// stopped medication, an active and a resolved problem, and an allergy.
    private func home() throws -> BatchHome {
        let h = try BatchHome(patients: 2)
        let p = "rc-patient"
        var covid = Bundles.observation(
            p,
            category: "laboratory",
            code: "94500-6",
            display: "SARS-CoV-2 RNA Pnl Resp NAA+probe",
            value: 0,
            unit: "",
            effective: "2020-05-13T21:20:00-07:00"
        )
        var resource = covid["resource"] as! [String: Any]
        resource.removeValue(forKey: "valueQuantity")
        resource["id"] = "rc-covid"
        resource["valueCodeableConcept"] = [
            "coding": [
                ["system": "http://snomed.info/sct", "code": "260373001", "display": "Detected (qualifier value)"]
            ],
            "text": "Detected (qualifier value)",
        ]
        covid["resource"] = resource
        covid["fullUrl"] = "urn:uuid:rc-covid"
        func condition(_ display: String, status: String) -> [String: Any] {
            var entry = Bundles.condition(p)
            var resource = entry["resource"] as! [String: Any]
            resource["clinicalStatus"] = ["coding": [["code": status]]]
            resource["code"] = ["coding": [["system": "http://snomed.info/sct", "code": "1", "display": display]]]
            entry["resource"] = resource
            return entry
        }
        func medication(_ display: String, status: String) -> [String: Any] {
            var entry = Bundles.medication(p)
            var resource = entry["resource"] as! [String: Any]
            resource["status"] = status
            resource["medicationCodeableConcept"] = [
                "coding": [["system": "http://www.nlm.nih.gov/research/umls/rxnorm", "code": "2", "display": display]]
            ]
            entry["resource"] = resource
            return entry
        }
        let bundle = h.directory.appendingPathComponent("readable.json")
        try Bundles.bundle([
            Bundles.patient(p, given: ["Rhea"], family: "Dable", mrn: "RC0001", birthDate: "1980-02-29"),
            covid,
            Bundles.diagnosticReport(
                p,
                name: "SARS-CoV-2 panel",
                results: [("rc-covid", "SARS-CoV-2 RNA Pnl Resp NAA+probe")]
            ),
            Bundles.labResult(p, id: "rc-glucose", display: "Glucose", value: 95),
            Bundles.diagnosticReport(p, name: "Basic metabolic panel", results: [("rc-glucose", "Glucose")]),
            Bundles.observation(p, code: "8310-5", display: "Body temperature", value: 37.2, unit: "Cel"),
            Bundles.observation(p, code: "39156-5", display: "Body mass index", value: 31.4, unit: "kg/m2"),
            condition("Hypertension", status: "active"), condition("Acute bronchitis", status: "resolved"),
            medication("lisinopril 10 MG Oral Tablet", status: "active"),
            medication("amoxicillin 500 MG Oral Capsule", status: "stopped"),
            Bundles.allergy(p),
        ])
        .write(to: bundle)
        _ = try TerminalHarness.run(TerminalHarness.wardPath, ["import", bundle.path], environment: h.environment)
        #expect(TerminalHarness.lastStatus == 0)
        return h
    }

    private func run(_ h: BatchHome, _ lines: [String]) throws -> String {
        let p = try h.start(["--batch", try h.script(lines), "--user", "demo", "--password-file", h.passwordFile])
        #expect(try p.waitForExit() == 0, "\(p.standardError)")
        return p.standardOutput
    }

    @Test func reports_listEachResultWithItsValue_andUnitsReadAsPeopleWriteThem() throws {
        let h = try home()
        let out = try run(h, ["open RC0001", "show reports", "show vitals"])
        #expect(out.contains("SARS-CoV-2 RNA Pnl Resp NAA+probe: Detected (qualifier value)"), "\(out)")
        #expect(out.contains("Glucose: 95 mg/dL"), "\(out)")
        #expect(out.contains("°C") && out.contains("kg/m²"), "\(out)")
        #expect(!out.contains("Cel") && !out.contains("kg/m2"), "\(out)")
    }

    @Test func expanded_showsEveryFieldOnItsLine_uncut() throws {
        let h = try home()
        let out = try run(h, ["open RC0001", "show labs --expanded"])
        #expect(out.contains("-[ RECORD 1 ]"), "\(out)")
        #expect(out.contains("MEASUREMENT | SARS-CoV-2 RNA Pnl Resp NAA+probe"), "\(out)")
        #expect(out.contains("VALUE       | 95"), "\(out)")
    }

    @Test func summary_isTheCoverSheet_withAge_andStatusFiltersKeepTheirRows() throws {
        let h = try home()
        let out = try run(h, ["open RC0001", "show", "show meds active", "show problems active"])
        #expect(out.contains("Age "), "\(out)")
        #expect(out.contains("Active problems     Hypertension"), "\(out)")
        #expect(out.contains("Active medications  lisinopril 10 MG Oral Tablet"), "\(out)")
        #expect(out.contains("Allergies           Peanut"), "\(out)")
        let tables = out.components(separatedBy: "MEDICATION")
        #expect(tables.count == 2 && !tables[1].contains("amoxicillin") && tables[1].contains("lisinopril"), "\(out)")
        #expect(!tables[1].contains("Acute bronchitis") && tables[1].contains("Hypertension"), "\(out)")
    }
}
