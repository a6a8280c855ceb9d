import Foundation
import Testing

/// `--format csv` through the real binary: tables only on standard output, RFC 4180 records.
@Suite(.serialized) struct CSVEndToEndTests {
    @Test func aBatchInCSV_writesEachTableUnderItsHeader_andMessagesToStandardError() throws {
        let h = try BatchHome()
        let script = try h.script(["find alvarez", "open W0000011", "show labs glucose --all", "show labs nothing"])
        let p = try h.start([
            "--batch", script, "--user", "demo", "--password-file", h.passwordFile, "--format", "csv",
        ])
        #expect(try p.waitForExit() == 0)
        let records = p.standardOutput.components(separatedBy: "\r\n")
        #expect(records.first == "row,mrn,name,born,sex,restricted")
        #expect(records.contains { $0.hasPrefix("1,W0000011,\"Alvarez, Brandon\",") })
        #expect(records.contains("time,measurement,value,unit"))
        #expect(records.contains { $0.contains(",Glucose [Mass/volume] in Blood,") })
        #expect(records.last == "")  // the output ends with a record's CRLF
        #expect(!p.standardOutput.contains("No labs match."))
        #expect(p.standardError.contains("No labs match."))
    }
}
