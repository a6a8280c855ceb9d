import FHIRTestSupport
import Foundation
import Testing

/// Typed JSON and what a clinician types, through the real binary, on a chart under the names
/// and codes of a real Synthea export: `show labs hba1c` finds "Hemoglobin A1c/Hemoglobin.total
/// in Blood", and `--format json` writes its value as a number, its time as an instant with its
/// offset and its code with its system.
@Suite(.serialized) struct TypedJSONEndToEndTests {
    static let mrn = "REAL-0001"

    /// A home (user alice) holding one patient with a real export's labs and vitals, a note as a
    /// presented form, and a password file; its environment.
    private func home() throws -> (TerminalHarness, [String: String], String) {
        let t = try TerminalHarness()
        let environment = ["WARD_HOME": t.home.path, "WARD_SITE": t.siteFile.path, "HOME": t.directory.path]
        let note = Data("Well.\nReturn in a year.".utf8).base64EncodedString()
        let bundle = Bundles.bundle(
            [Bundles.patient("real-1", given: ["Ada"], family: "Lovelace", mrn: Self.mrn)]
                + Bundles.realMeasurements("real-1", effective: "2020-01-02T03:04:05-05:00")
                + [Bundles.presentedReport("real-1", contentType: "text/plain", data: note)]
        )
        let file = t.directory.appendingPathComponent("real.json")
        try bundle.write(to: file)
        let imported = try TerminalHarness.runToEnd(
            ["import", file.path],
            environment: environment,
            capturingIn: t.directory
        )
        #expect(imported.status == 0, "\(String(decoding: imported.err, as: UTF8.self))")
        let password = t.directory.appendingPathComponent("password").path
        try (TerminalHarness.password + "\n").write(toFile: password, atomically: false, encoding: .utf8)
        chmod(password, 0o600)
        return (t, environment, password)
    }

    private func batch(
        _ lines: [String],
        format: String,
        in home: (TerminalHarness, [String: String], String)
    ) throws
        -> (status: Int32, out: String, err: String)
    {
        let (t, environment, password) = home
        let script = t.directory.appendingPathComponent("s-\(UUID().uuidString).ward").path
        try (lines.joined(separator: "\n") + "\n").write(toFile: script, atomically: true, encoding: .utf8)
        let run = try TerminalHarness.runToEnd(
            ["--batch", script, "--user", TerminalHarness.user, "--password-file", password, "--format", format],
            environment: environment,
            capturingIn: t.directory
        )
        return (run.status, String(decoding: run.out, as: UTF8.self), String(decoding: run.err, as: UTF8.self))
    }

    @Test func batchJSON_isTyped_andHba1cFindsTheRealName() throws {
        let home = try home()
        let run = try batch(
            ["open \(Self.mrn)", "show labs hba1c", "show vitals bmi", "show labs 4548-4", "show reports", "show"],
            format: "json",
            in: home
        )
        #expect(run.status == 0, "\(run.err)")
        let records = try run.out.split(separator: "\n").map {
            try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(records.count == 6)
        #expect(records[0]["line"] as? Int == 1)

        let a1c = try #require(records[1]["rows"] as? [[String: Any]])
        #expect(a1c.count == 1)
        #expect(a1c[0]["measurement"] as? String == "Hemoglobin A1c/Hemoglobin.total in Blood")
        #expect(a1c[0]["value"] as? Double == 6.1)
        #expect(!(a1c[0]["value"] is String))
        #expect(a1c[0]["time"] as? String == "2020-01-02T08:04:05Z")
        #expect(
            a1c[0]["code"] as? [String: String] == [
                "system": "http://loinc.org", "code": "4548-4", "display": "Hemoglobin A1c/Hemoglobin.total in Blood",
            ]
        )
        let bmi = try #require(records[2]["rows"] as? [[String: Any]])
        #expect(bmi.map { $0["value"] as? Double } == [27.4])
        #expect((records[3]["rows"] as? [[String: Any]])?.count == 1)

        let report = try #require((records[4]["rows"] as? [[String: Any]])?.first)
        #expect(report["conclusion"] as? String == "Well.\nReturn in a year.")
        #expect(report["date"] as? String == "2020-01-02T03:04:05Z")

        let summary = try #require(records[5]["rows"] as? [[String: Any]])
        #expect(summary.first { $0["field"] as? String == "Labs" }?["value"] as? Int == 7)
        #expect(summary.first { $0["field"] as? String == "MRN" }?["value"] as? String == Self.mrn)
    }

    /// The shell's `format json` in a pseudo-terminal: each row one typed object on one line.
    @Test func theShellsFormatJSON_writesTypedRows() throws {
        let home = try home()
        let t = home.0
        try t.resize(columns: 400, rows: 30)
        try t.signOn()
        try t.enter("open \(Self.mrn)")
        try t.waitFor("Opened \(Self.mrn)")
        try t.enter("format json")
        try t.waitFor("Tables are shown as json.")
        try t.enter("show labs hba1c")
        let screen = try t.waitFor(#""code":{"#)
        let line = try #require(screen.split(separator: "\n").first { $0.hasPrefix("{") })
        let row = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(row["value"] as? Double == 6.1 && !(row["value"] is String))
        #expect(row["time"] as? String == "2020-01-02T08:04:05Z")
        #expect((row["code"] as? [String: String])?["system"] == "http://loinc.org")
        try t.press("C-d")
        #expect(try t.waitForExit() == 0)
    }

    @Test func batchText_hba1cAndTheOtherAbbreviations_keepTheirRows() throws {
        let home = try home()
        let run = try batch(
            [
                "open \(Self.mrn)", "show labs hba1c", "show labs ldl", "show labs egfr", "show labs wbc",
                "show labs hb",
            ],
            format: "text",
            in: home
        )
        #expect(run.status == 0, "\(run.err)")
        let out = run.out
        #expect(out.contains("Hemoglobin A1c/Hemoglobin.total in Blood"))
        #expect(out.contains("Low Density Lipoprotein Cholesterol"))
        #expect(out.contains("Glomerular filtration rate"))
        #expect(out.contains("Leukocytes [#/volume] in Blood by Automated count"))
        #expect(out.contains("Hemoglobin [Mass/volume] in Blood"))
        #expect(!out.contains("Glucose"))
        #expect(!out.contains("match."))
    }
}
