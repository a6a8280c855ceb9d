import FHIRTestSupport
import Testing
import WardCore
import WardRecords
import WardShell

/// The care-record sections: each a `show` section with its table, its count in the summary,
/// its read access event, completion and help; clinical, so refused to a clerk.
@Suite struct ChartSectionTests {
    @Test func eachNewSection_printsItsTable() throws {
        let f = try ShellFixture()
        f.run("open M1")
        let expected: [String: [String]] = [
            "immunizations": ["VACCINE", "Influenza, seasonal", "completed", "2015-07-02"],
            "procedures": ["PROCEDURE", "REASON", "Depression screening", "Stress (finding)"],
            "careplans": ["PLAN", "ACTIVITIES", "Diabetes self management plan", "Diabetic diet; Exercise therapy"],
            "reports": ["REPORT", "RESULTS", "Hemoglobin A1c panel", "Hemoglobin A1c"],
            "social": ["MEASUREMENT", "Tobacco smoking status", "Never smoked tobacco"],
            "surveys": ["Patient Health Questionnaire-2 score", "{score}"],
        ]
        for (section, words) in expected {
            let (result, output) = f.run("show \(section)")
            #expect(result == .succeeded, "\(section)")
            for word in words { #expect(output.contains(word), "\(section): \(word)") }
        }
        #expect(!f.run("show labs").output.contains("smoking"))
        #expect(!f.run("show vitals").output.contains("Questionnaire"))
    }

    @Test func anEmptySection_saysSoInWords() throws {
        let f = try ShellFixture()
        f.run("open M2")
        #expect(f.run("show careplans").output == "No care plans in this chart.")
        #expect(f.run("show reports").output == "No diagnostic reports in this chart.")
        #expect(f.run("show social").output == "No social history in this chart.")
        #expect(f.run("show immunizations").output == "No immunizations in this chart.")
    }

    @Test func summary_countsEverySection() throws {
        let f = try ShellFixture()
        f.run("open M1")
        let output = f.run("show summary").output
        for (label, count) in [
            ("Allergies", 1), ("Medications", 1), ("Problems", 1), ("Vitals", 1), ("Labs", 1), ("Social history", 1),
            ("Surveys", 1), ("Immunizations", 1), ("Procedures", 1), ("Care plans", 1), ("Reports", 1),
            ("Encounters", 1), ("Notes", 0),
        ] {
            let padding = String(repeating: " ", count: 16 - label.count)
            #expect(output.contains("\n\(label)\(padding)\(count)"), "\(label)")
        }
    }

    @Test func show_newSections_areReads_withTheSectionAsDetail() throws {
        let f = try ShellFixture()
        f.run("open M1")
        _ = f.accesses()
        let sections = ["immunizations", "procedures", "careplans", "reports", "social", "surveys"]
        for section in sections { f.run("show \(section)") }
        #expect(f.accesses() == sections.map { RecordAccess(.read, record: "M1", detail: $0, outcome: .ok) })
    }

    @Test func aClerk_isRefusedTheNewSections() throws {
        let f = try ShellFixture(role: .clerk, user: "bob")
        f.run("open M1")
        for section in ["immunizations", "procedures", "careplans", "reports", "social", "surveys"] {
            #expect(f.run("show \(section)") == (.failed, "ward: 'show \(section)' is not allowed for the clerk role."))
        }
        #expect(!f.run("show summary").output.contains("Immunizations"))
    }

    @Test func completion_andHelp_offerEverySection() throws {
        #expect(Shell().completions(for: "s", before: "show ") == ["social", "summary", "surveys"])
        #expect(Shell().completions(for: "", before: "show ") == ChartSection.allCases.map(\.rawValue).sorted())
        let f = try ShellFixture()
        let help = f.run("help show").output
        for section in ChartSection.allCases { #expect(help.contains("\n  \(section.rawValue) "), "\(section)") }
        #expect(help.contains("Care plans: category, activities, period, status."))
    }

    @Test func structuredDosage_fillsTheDosageColumn() throws {
        let f = try ShellFixture()
        var report = ImportReport()
        try FHIRImporter(store: f.store).importBundle(
            Bundles.bundle([
                Bundles.patient("p9", given: ["Alan"], family: "Turing", mrn: "M9"),
                Bundles.structuredMedication("p9", frequency: 1, route: "Oral"),
            ]),
            file: "b.json",
            into: &report
        )
        f.run("open M9")
        #expect(f.run("show meds").output.contains("1, Oral, once a day"))
    }

    @Test func hostileText_inEveryNewSection_isShownEscaped_neverSent() throws {
        let f = try ShellFixture()
        let payload = "x\u{1B}]0;title\u{07}\r\u{202E}y"
        var report = ImportReport()
        try FHIRImporter(store: f.store).importBundle(
            Bundles.bundle([
                Bundles.patient("p9", given: ["Alan"], family: "Turing", mrn: "M9"),
                Bundles.immunization("p9", vaccine: payload),
                Bundles.procedure("p9", display: payload, reason: ("c", payload)),
                Bundles.carePlan("p9", plan: payload, activities: [payload, payload]),
                Bundles.diagnosticReport("p9", name: payload, results: [("o", payload)]),
                Bundles.structuredMedication("p9", route: payload),
            ]),
            file: "b.json",
            into: &report
        )
        f.width = 400
        f.run("open M9")
        for section in ["immunizations", "procedures", "careplans", "reports", "meds"] {
            let output = f.run("show \(section) --all").output
            #expect(
                !output.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{07}" || $0 == "\r" || $0 == "\u{202E}" }
            )
            #expect(output.contains(#"x\e]0;title\a\r\u202Ey"#), "\(section): \(output)")
        }
    }
}
