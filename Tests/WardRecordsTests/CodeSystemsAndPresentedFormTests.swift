import FHIRTestSupport
import Foundation
import Testing

@testable import WardRecords

/// Each code's system, and a report's `presentedForm` (migration 4): imported, stored,
/// read back; and a records file from before the migration still reads, with no system.
@Suite struct CodeSystemsAndPresentedFormTests {
    private func chart(_ entries: [[String: Any]]) throws -> LoadedChart {
        let home = TemporaryHome()
        defer { home.remove() }
        let store = try SQLiteRecordStore(home: home.path)
        defer { store.close() }
        var report = ImportReport()
        let patient = Bundles.patient("p1", given: ["Ada"], family: "Lovelace", mrn: "M1")
        try FHIRImporter(store: store).importBundle(Bundles.bundle([patient] + entries), file: "a.json", into: &report)
        return try store.chart(mrn: "M1")
    }

    @Test func everyCode_keepsItsSystem() throws {
        let chart = try chart(
            Bundles.everyKind("p1", given: ["Ada"], family: "Lovelace", mrn: "M1").dropFirst().map { $0 }
        )
        #expect(chart.observations.allSatisfy { $0.system == "http://loinc.org" })
        #expect(chart.problems.allSatisfy { $0.system == "http://snomed.info/sct" })
        #expect(chart.immunizations.allSatisfy { $0.system == "http://hl7.org/fhir/sid/cvx" })
        #expect(chart.reports.map(\.system) == ["http://loinc.org"])
        // A coding without a system (the builders' allergy and metformin) keeps none.
        #expect(chart.allergies.map(\.system) == [""])
        #expect(
            Set(chart.medications.map(\.system)) == ["", "http://www.nlm.nih.gov/research/umls/rxnorm"]
        )
    }

    @Test func aTextPresentedForm_isDecoded() throws {
        let text = "History: well.\nPlan: none. é"
        let chart = try chart([
            Bundles.presentedReport("p1", contentType: "text/plain", data: Data(text.utf8).base64EncodedString())
        ])
        #expect(chart.reports.map(\.presentedForm) == [text])
        #expect(chart.reports.map(\.conclusion) == [""])
    }

    @Test func anotherContentType_isDescribed_notDecoded() throws {
        let pdf = Data(repeating: 0x25, count: 3000).base64EncodedString()
        let chart = try chart([
            Bundles.presentedReport("p1", contentType: "application/pdf", data: pdf, title: "Discharge summary"),
            Bundles.presentedReport("p1", contentType: "image/png", title: nil, size: 12345),
            Bundles.presentedReport("p1", contentType: "text/plain", data: "not base64!"),
            // Padding counts no byte: 16 characters ending in `==` are 10 bytes.
            Bundles.presentedReport(
                "p1",
                contentType: "application/octet-stream",
                data: Data(count: 10).base64EncodedString()
            ),
        ])
        #expect(
            chart.reports.map(\.presentedForm) == [
                "Discharge summary (application/pdf, 3000 bytes)", "attachment (image/png, 12345 bytes)",
                "attachment (text/plain, 6 bytes)", "attachment (application/octet-stream, 10 bytes)",
            ]
        )
    }

    @Test func aLongTextPresentedForm_isCutAtTheLimit_sayingItsSize() throws {
        let text = String(repeating: "a", count: FHIRBundle.presentedFormLimit * 3)
        let chart = try chart([
            Bundles.presentedReport("p1", contentType: "text/plain", data: Data(text.utf8).base64EncodedString())
        ])
        let kept = try #require(chart.reports.first?.presentedForm)
        #expect(kept.hasPrefix(String(repeating: "a", count: FHIRBundle.presentedFormLimit - 3)))
        #expect(kept.hasSuffix(" … (\(text.utf8.count) bytes in all)"))
        #expect(kept.utf8.count < FHIRBundle.presentedFormLimit + 100)
    }

    /// A file as Ward before migration 4 left it: rows without a system still read, with none.
    @Test func aDatabaseBeforeTheMigration_readsItsRows_withNoSystem() throws {
        let home = TemporaryHome()
        defer { home.remove() }
        let queue = try SQLiteConnection(path: home.recordsPath)
        try SQLiteSchema.migrator.migrate(queue, upTo: SQLiteSchema.careRecordsMigration)
        try queue.write { db in
            try db.execute(
                """
                INSERT INTO patient (id, mrn, fhir_id, given, family, birth_date, sex, phone, address)
                VALUES (1, 'M1', 'p1', 'Ada', 'Lovelace', '1815-12-10', 'female', '', '');
                INSERT INTO problem (patient_id, code, display, status) VALUES (1, '38341003', 'Hypertension', 'active');
                INSERT INTO diagnostic_report (patient_id, code, name, status, results, conclusion)
                VALUES (1, '51990-0', 'Panel', 'final', '[]', 'Normal.');
                INSERT INTO observation_code (id, code, display, unit, category)
                VALUES (1, '8867-4', 'Heart rate', '/min', 'vital-signs');
                INSERT INTO observation (id, code_id, value, time) VALUES (\(1 << RecordsLayout.observationIDBits), 1, 72, 0);
                """
            )
        }
        queue.close()
        chmod(home.recordsPath, 0o600)
        let store = try SQLiteRecordStore(path: home.recordsPath)
        defer { store.close() }
        let chart = try store.chart(mrn: "M1")
        #expect(chart.problems == [Problem(code: "38341003", display: "Hypertension")])
        #expect(chart.reports.map(\.conclusion) == ["Normal."] && chart.reports.map(\.presentedForm) == [""])
        #expect(chart.observations.map(\.system) == [""] && chart.observations.map(\.value) == [72])
    }
}
