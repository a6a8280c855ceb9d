import FHIRTestSupport
import Foundation
import Testing
import WardCore
import WardRecords
import WardShell

/// Typed JSON (`format json`, `--format json`): numbers as numbers, instants in ISO 8601 with
/// their offset, codes with their systems; on a chart under a real export's names.
@Suite struct TypedJSONTests {
    /// A shell over a store holding one patient with `entries`, JSON tables, and each printed line.
    final class Fixture {
        let home = NSTemporaryDirectory() + "ward-typed-json-" + UUID().uuidString
        let store: SQLiteRecordStore
        let shell: Shell
        var lines: [String] = []

        init(_ entries: [[String: Any]]) throws {
            try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
            store = try SQLiteRecordStore(home: home)
            var report = ImportReport()
            let bundle = Bundles.bundle(
                [Bundles.patient("p1", given: ["Ada"], family: "Lovelace", mrn: "M1")] + entries
            )
            try FHIRImporter(store: store).importBundle(bundle, file: "t.json", into: &report)
            var captured: (String) -> Void = { _ in }
            shell = Shell(store: store, width: { 200 }, output: { captured($0) })
            captured = { [unowned self] in self.lines.append($0) }
            shell.signedOn(user: "alice", role: .clinician)
            (shell.output as? TextOutput)?.format = .json
        }

        deinit {
            store.close()
            try? FileManager.default.removeItem(atPath: home)
        }

        /// The JSON objects `line` printed (its tables; messages stay text).
        func objects(_ line: String) throws -> [[String: Any]] {
            lines = []
            _ = shell.run(Line(line))
            return try lines.filter { $0.hasPrefix("{") }.map {
                try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
            }
        }
    }

    @Test func observations_haveANumber_anInstant_andACodeWithItsSystem() throws {
        let f = try Fixture(Bundles.realMeasurements("p1", effective: "2020-01-02T03:04:05-05:00"))
        _ = try f.objects("open M1")
        let labs = try f.objects("show labs")
        let a1c = try #require(labs.first { ($0["measurement"] as? String)?.hasPrefix("Hemoglobin A1c") == true })
        #expect(a1c["value"] as? Double == 6.1)
        #expect(a1c["value"] is NSNumber)
        #expect(a1c["unit"] as? String == "%")
        // The instant the source wrote, to the second, in UTC with its offset.
        #expect(a1c["time"] as? String == "2020-01-02T08:04:05Z")
        let code = try #require(a1c["code"] as? [String: String])
        #expect(
            code == [
                "system": "http://loinc.org", "code": "4548-4", "display": "Hemoglobin A1c/Hemoglobin.total in Blood",
            ]
        )
        // A whole number is written without a fraction.
        let ldl = try #require(labs.first { ($0["measurement"] as? String)?.hasPrefix("Low Density") == true })
        #expect(ldl["value"] as? Int == 121)
    }

    @Test func everySection_writesItsInstantsAndCodes_typed() throws {
        let f = try Fixture(
            Bundles.everyKind("p1", given: ["Ada"], family: "Lovelace", mrn: "M1").dropFirst().map { $0 }
        )
        _ = try f.objects("open M1")
        let problem = try #require(try f.objects("show problems").first)
        #expect((problem["code"] as? [String: String])?["system"] == "http://snomed.info/sct")
        #expect((problem["onset"] as? String).map(Self.isInstant) == true)
        #expect(problem["abated"] is NSNull)
        let vaccine = try #require(try f.objects("show immunizations").first)
        #expect((vaccine["code"] as? [String: String])?["system"] == "http://hl7.org/fhir/sid/cvx")
        #expect((vaccine["date"] as? String).map(Self.isInstant) == true)
        let medication = try #require(try f.objects("show meds").first)
        #expect((medication["code"] as? [String: String])?["code"] != nil)
        let plan = try #require(try f.objects("show careplans").first)
        #expect(plan["activities"] as? [String] != nil)
        let report = try #require(try f.objects("show reports").first)
        #expect(report["results"] as? [String] == ["Glucose", "Urea Nitrogen"])
        #expect(report["findings"] as? [String] == ["Glucose: 88 mg/dL", "Urea Nitrogen: 12 mg/dL"])
        #expect((report["code"] as? [String: String])?["code"] == "51990-0")
        let encounter = try #require(try f.objects("show encounters").first)
        #expect((encounter["start"] as? String).map(Self.isInstant) == true)
        let summary = try f.objects("show")
        #expect(summary.first { $0["field"] as? String == "Immunizations" }?["value"] as? Int == 2)
        // The cover sheet's lists whole, as arrays.
        #expect(summary.first { $0["field"] as? String == "Active problems" }?["value"] as? [String] != nil)
        #expect(summary.first { $0["field"] as? String == "Age" }?["value"] as? String != nil)
    }

    @Test func aReportWithOnlyAPresentedForm_showsItsTextAsTheConclusion() throws {
        let text = "Patient is well.\nNo change."
        let f = try Fixture([
            Bundles.presentedReport(
                "p1",
                contentType: "text/plain; charset=utf-8",
                data: Data(text.utf8).base64EncodedString()
            )
        ])
        _ = try f.objects("open M1")
        let report = try #require(try f.objects("show reports").first)
        #expect(report["conclusion"] as? String == text)
        #expect(report["results"] as? [String] == [])
        (f.shell.output as? TextOutput)?.format = .text
        f.lines = []
        _ = f.shell.run(Line("show reports"))
        // Text shows the note on its row, its line break as `\n`.
        #expect(f.lines.contains { $0.contains(#"Patient is well.\nNo change."#) })
    }

    @Test func tableValue_encodesEachKind() throws {
        func json(_ value: TableValue) throws -> String {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            return String(decoding: try encoder.encode([value]), as: UTF8.self)
        }
        #expect(try json(.number(72)) == "[72]")
        #expect(try json(.number(6.4)) == "[6.4]")
        #expect(try json(.number(.nan)) == "[null]")
        #expect(try json(.number(.infinity)) == "[null]")
        #expect(try json(.time(Date(timeIntervalSince1970: 1_577_934_245))) == #"["2020-01-02T03:04:05Z"]"#)
        #expect(try json(.code(system: "", code: "140", display: "")) == #"[{"code":"140"}]"#)
        #expect(
            try json(.code(system: "http://loinc.org", code: "4548-4", display: "A1c"))
                == #"[{"code":"4548-4","display":"A1c","system":"http://loinc.org"}]"#
        )
        #expect(try json(.bool(true)) == "[true]")
        #expect(try json(.list(["a", "b"])) == #"[["a","b"]]"#)
        #expect(try json(.null) == "[null]")
    }

    static func isInstant(_ text: String) -> Bool {
        (try? Date.ISO8601FormatStyle().parse(text)) != nil && text.hasSuffix("Z") && text.count == 20
    }
}
