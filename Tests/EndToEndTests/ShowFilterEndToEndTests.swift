import Foundation
import Testing

/// `show SECTION WORD... --since DAY --until DAY` through the real binary, in a batch.
@Suite(.serialized) struct ShowFilterEndToEndTests {
    @Test func filters_keepTheRowsAsked_andTheAuditNamesOnlyTheSection() throws {
        let h = try BatchHome()
        let script = try h.script([
            "open W0000011",
            "show labs GLUCOSE blood --all",
            "show vitals body WEIGHT --since 1900-01-01 --until 2999-12-31 --all",
            "show labs --since 2999-01-01",
            "show labs --until 31/12/2020",
        ])
        let p = try h.start([
            "--batch", script, "--user", "demo", "--password-file", h.passwordFile, "--on-error", "continue",
        ])
        #expect(try p.waitForExit() == 1)
        let out = p.standardOutput
        #expect(out.contains("Glucose [Mass/volume] in Blood"))
        #expect(!out.contains("Sodium"))
        #expect(out.contains("Body Weight"))
        #expect(!out.contains("Heart rate"))
        #expect(out.contains("No labs match."))
        #expect(p.standardError.contains("\(script):5: "))
        #expect(p.standardError.contains("--until takes a day as YYYY-MM-DD, such as 2020-01-31; got '31/12/2020'"))

        let records = try h.auditRecords()
        let reads = records.filter { $0["action"] as? String == "read" }
        #expect(reads.map { $0["section"] as? String } == ["labs", "vitals", "labs"])
        let audit = String(decoding: try JSONSerialization.data(withJSONObject: records), as: UTF8.self)
        for typed in ["GLUCOSE", "WEIGHT", "1900-01-01", "2999-01-01", "31/12/2020"] {
            #expect(!audit.contains(typed), "\(typed)")
        }
    }
}
