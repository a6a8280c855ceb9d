import Foundation
import Testing
import WardCore
import WardShell

/// `--format csv`: RFC 4180 records, one header row per table, formulas defused, controls shown.
@Suite struct CSVOutputTests {
    final class Streams {
        var out: [String] = []
        var err: [String] = []
    }

    private func write(_ tables: [TextTable], messages: [String] = []) -> Streams {
        let streams = Streams()
        let output = BatchOutput(
            format: .csv,
            width: { 20 },
            standardOutput: { streams.out.append($0) },
            standardError: { streams.err.append($0) }
        )
        let line = Line("show labs", source: .batch(file: "s.ward", line: 1))
        output.commandStarted(line)
        for table in tables { output.table(table) }
        for message in messages { output.message(message) }
        output.commandFinished(line, status: .succeeded)
        return streams
    }

    @Test func eachTable_hasOneHeaderRow_ofItsKeys_andRecordsEndInCRLF_uncut() {
        let long = String(repeating: "x", count: 50)
        let streams = write([
            TextTable(headers: ["TIME", "MEASUREMENT"], rows: [["2020-05-06 07:08", long]]),
            TextTable(headers: ["A"], rows: [["1"], ["2"]]),
        ])
        // Each string is one line that `print` ends with LF.
        #expect(streams.out == ["time,measurement\r", "2020-05-06 07:08,\(long)\r", "a\r", "1\r", "2\r"])
    }

    @Test func cells_areQuotedAsRFC4180Says() {
        let streams = write([
            TextTable(headers: ["V"], rows: [["a,b"], ["say \"hi\""], ["two\nlines"], ["plain"]])
        ])
        #expect(streams.out == ["v\r", "\"a,b\"\r", "\"say \"\"hi\"\"\"\r", "\"two\nlines\"\r", "plain\r"])
    }

    @Test func formulas_getALeadingQuote_asOWASPAdvises() {
        let cells = ["=HYPERLINK(\"http://x\")", "+1", "-5", "@SUM(A1)", "a=b"]
        let streams = write([TextTable(headers: ["V"], rows: cells.map { [$0] })])
        #expect(
            Array(streams.out.dropFirst()) == [
                "\"'=HYPERLINK(\"\"http://x\"\")\"\r", "'+1\r", "'-5\r", "'@SUM(A1)\r", "a=b\r",
            ]
        )
    }

    @Test func controls_areShownAsEscapes_andMessagesGoToStandardError() {
        let streams = write([TextTable(headers: ["V"], rows: [["\u{1B}[2Jboo"]])], messages: ["No labs match."])
        #expect(streams.out == ["v\r", "\\e[2Jboo\r"])
        #expect(streams.err == ["No labs match."])
    }
}

/// `format text|json|csv` in the shell: tables change, messages stay text.
@Suite struct FormatCommandTests {
    @Test func format_changesHowTablesAreShown_andSaysWhichWithoutAValue() throws {
        let f = try ShellFixture()
        #expect(f.run("format") == (.succeeded, "Tables are shown as text."))
        #expect(f.run("format csv") == (.succeeded, "Tables are shown as csv."))
        #expect(
            f.run("find lov").output
                == "row,mrn,name,born,sex,restricted\r\n1,M1,\"Lovelace, Ada Augusta\",1815-12-10,female,\r"
        )
        #expect(f.run("format json").result == .succeeded)
        // Typed JSON: the row number is a number, restricted a boolean.
        let object = try JSONSerialization.jsonObject(with: Data(f.run("find lov").output.utf8)) as? [String: Any]
        #expect(object?["mrn"] as? String == "M1" && object?["name"] as? String == "Lovelace, Ada Augusta")
        #expect(object?["row"] as? Int == 1 && object?["restricted"] as? Bool == false)
        #expect(f.run("find zzz").output == "No patient matches. Try fewer letters, or fewer words.")
        #expect(f.run("format text").result == .succeeded)
        #expect(f.run("find lov").output.hasPrefix("#  MRN  NAME"))
        #expect(f.run("format expanded") == (.succeeded, "Tables are shown as expanded."))
        #expect(f.run("format") == (.succeeded, "Tables are shown as expanded."))
        #expect(f.run("find lov").output.hasPrefix("-[ RECORD 1 ]"))
        #expect(f.run("find lov").output.contains("| Lovelace, Ada Augusta"))
        #expect(f.run("format text").result == .succeeded)
        #expect(f.run("format xml").output.contains("'text', 'expanded', 'json', 'csv'"))
        #expect(f.run("format xml").result == .failed)
        #expect(f.run("help format").output.contains("= + - @"))
    }
}
