import Foundation
import Testing
import WardCore
import WardShell

/// The records shell behind a batch's output: what reaches standard output and standard error.
struct BatchOutputTests {
    final class Streams {
        var out: [String] = []
        var err: [String] = []
    }

    /// Runs `lines` through the fixture's shell with a batch output in `format`, as the batch
    /// session would: started, run, finished.
    private func run(_ lines: [String], format: BatchOutput.Format) throws -> Streams {
        let f = try ShellFixture()
        let streams = Streams()
        let output = BatchOutput(
            format: format,
            width: { Int.max },
            standardOutput: { streams.out.append($0) },
            standardError: { streams.err.append($0) }
        )
        f.shell.output = output
        for (index, text) in lines.enumerated() {
            let line = Line(text, source: .batch(file: "s.ward", line: index + 1))
            output.commandStarted(line)
            let result = f.shell.run(line)
            output.commandFinished(line, status: result == .failed || result == .missingContext ? .failed : .succeeded)
        }
        return streams
    }

    private func objects(_ lines: [String]) throws -> [[String: Any]] {
        try lines.map { try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
    }

    @Test func json_isOneObjectPerCommand_withRowsKeyedByColumn() throws {
        let streams = try run(["find hopper", "open M1", "show vitals"], format: .json)
        let records = try objects(streams.out)
        #expect(records.count == 3)
        #expect(records[0]["line"] as? Int == 1)
        #expect(records[0]["command"] as? String == "find hopper")
        #expect(records[0]["status"] as? String == "ok")
        #expect(records[0]["source"] as? String == "batch:s.ward:1")
        // Typed: the row number is a number, `restricted` a boolean.
        let rows = try #require(records[0]["rows"] as? [[String: Any]])
        #expect(rows.count == 1)
        #expect(rows[0]["row"] as? Int == 1 && rows[0]["restricted"] as? Bool == true)
        #expect(rows[0]["mrn"] as? String == "M3" && rows[0]["name"] as? String == "Hopper, Grace")
        #expect(rows[0]["born"] as? String == "1906-12-09" && rows[0]["sex"] as? String == "female")
        #expect((records[0]["messages"] as? [String])?.contains { $0.contains("restricted") } == true)
        // Each row also carries its code.
        let vitals = try #require(records[2]["rows"] as? [[String: Any]])
        #expect(
            !vitals.isEmpty && vitals.allSatisfy { Set($0.keys) == ["time", "measurement", "value", "unit", "code"] }
        )
        #expect(streams.err.isEmpty)
    }

    /// The bytes of `find` and `open` in each format, pinned: the tables and the rows' JSON are
    /// written the fast way, and what a script reads must not move by a byte.
    @Test func findAndOpen_writeTheSameBytes_inEachFormat() throws {
        let lines = ["find lovelace", "find hopper", "open M1"]
        let restricted = "(R) restricted: 'open' asks for a reason, which is recorded."
        let opened = "Opened M1: Lovelace, Ada Augusta, born 1815-12-10, female."
        let text = try run(lines, format: .text)
        #expect(
            text.out == [
                "#  MRN  NAME                   BORN        SEX",
                "1  M1   Lovelace, Ada Augusta  1815-12-10  female",
                "#  MRN  NAME           BORN        SEX",
                "1  M3   Hopper, Grace  1906-12-09  female  (R)",
                restricted,
                opened,
            ]
        )
        let json = try run(lines, format: .json)
        #expect(
            json.out == [
                #"{"command":"find lovelace","line":1,"messages":[],"rows":[{"born":"1815-12-10","mrn":"M1","#
                    + #""name":"Lovelace, Ada Augusta","restricted":false,"row":1,"sex":"female"}],"#
                    + #""source":"batch:s.ward:1","status":"ok"}"#,
                #"{"command":"find hopper","line":2,"messages":["\#(restricted)"],"rows":[{"born":"1906-12-09","#
                    + #""mrn":"M3","name":"Hopper, Grace","restricted":true,"row":1,"sex":"female"}],"#
                    + #""source":"batch:s.ward:2","status":"ok"}"#,
                #"{"command":"open M1","line":3,"messages":["\#(opened)"],"rows":[],"source":"batch:s.ward:3","#
                    + #""status":"ok"}"#,
            ]
        )
        let csv = try run(lines, format: .csv)
        #expect(
            csv.out == [
                "row,mrn,name,born,sex,restricted\r", "1,M1,\"Lovelace, Ada Augusta\",1815-12-10,female,\r",
                "row,mrn,name,born,sex,restricted\r", "1,M3,\"Hopper, Grace\",1906-12-09,female,(R)\r",
            ]
        )
        #expect(csv.err == [restricted, opened])
        #expect(text.err.isEmpty && json.err.isEmpty)
    }

    @Test func json_aFailure_hasStatusAndError_andIsNamedOnStandardError() throws {
        let streams = try run(["fnd x"], format: .json)
        let record = try #require(try objects(streams.out).first)
        #expect(record["status"] as? String == "failed")
        #expect((record["error"] as? String)?.hasPrefix("unknown command 'fnd'") == true)
        #expect(streams.err == ["s.ward:1: unknown command 'fnd'. Did you mean 'find'? Type 'help' for the list."])
    }

    @Test func json_summaryAndNotes_areRowsToo() throws {
        let streams = try run(["open M1", "show", "note Seen today.", "show notes"], format: .json)
        let records = try objects(streams.out)
        let summary = try #require(records[1]["rows"] as? [[String: Any]])
        #expect(summary.first?["field"] as? String == "MRN" && summary.first?["value"] as? String == "M1")
        // A section's count is a number.
        let labs = summary.first { $0["field"] as? String == "Labs" }
        #expect(labs?["value"] as? Int == 1)
        let notes = try #require(records[3]["rows"] as? [[String: Any]])
        #expect(notes.first?["text"] as? String == "Seen today." && notes.first?["author"] as? String == "alice")
        // Its number, for a correction; and that it corrects none.
        #expect(notes.first?["note"] as? Int != nil && notes.first?["corrects"] is NSNull)
    }

    @Test func text_isUndecoratedAndUncut_whenNotOnATerminal() throws {
        let streams = try run(["open M1", "show"], format: .text)
        #expect(streams.out.contains { $0.hasPrefix("Name") && $0.hasSuffix("Lovelace, Ada Augusta") })
        #expect(!streams.out.joined().contains("\u{1B}"))
        #expect(!streams.out.contains { $0.hasSuffix(" ") || $0.contains("…") })
    }

    @Test func text_failures_goToStandardError_asFileLine() throws {
        let streams = try run(["show"], format: .text)
        #expect(streams.out.isEmpty)
        #expect(
            streams.err == ["s.ward:1: no chart is current. Open one with 'open MRN' (find the MRN with 'find NAME')."]
        )
    }

    @Test func aMessageOutsideACommand_goesToStandardError() {
        let streams = Streams()
        let output = BatchOutput(
            format: .json,
            standardOutput: { streams.out.append($0) },
            standardError: { streams.err.append($0) }
        )
        output.message("Demo data: 3 synthetic patients.")
        output.notice("locked (idle)")
        #expect(streams.out.isEmpty)
        #expect(streams.err == ["Demo data: 3 synthetic patients.", "ward: locked (idle)"])
    }

    @Test func json_writesDelC1AndBidiControls_asUnicodeEscapes() throws {
        let lines = Streams()
        let output = BatchOutput(
            format: .json,
            standardOutput: { lines.out.append($0) },
            standardError: { lines.err.append($0) }
        )
        let line = Line("find x", source: .batch(file: "s.ward", line: 1))
        output.commandStarted(line)
        output.table(TextTable(headers: ["NAME"], rows: [["a\u{1B}]0;t\u{07}\u{7F}\u{9B}2J\u{202E}b"]]))
        output.message("m\u{85}")
        output.commandFinished(line, status: .succeeded)
        let text = try #require(lines.out.first)
        #expect(
            !text.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || $0.value == 0x202E }
        )
        for escape in [#"\u001b"#, #"\u0007"#, #"\u007f"#, #"\u009b"#, #"\u202e"#, #"\u0085"#] {
            #expect(text.lowercased().contains(escape))
        }
        let rows = try #require(try objects([text]).first?["rows"] as? [[String: String]])
        #expect(rows == [["name": "a\u{1B}]0;t\u{07}\u{7F}\u{9B}2J\u{202E}b"]])
    }

    @Test func text_showsControls_onStandardOutputAndStandardError() {
        let lines = Streams()
        let output = BatchOutput(
            format: .text,
            standardOutput: { lines.out.append($0) },
            standardError: { lines.err.append($0) }
        )
        let line = Line("x", source: .batch(file: "s.ward", line: 2))
        output.commandStarted(line)
        output.message("said \u{1B}[2J")
        output.failure("no MRN 'a\rb'")
        output.commandFinished(line, status: .failed)
        output.notice("plugin says \u{9B}31m")
        #expect(lines.out == [#"said \e[2J"#])
        #expect(lines.err == [#"s.ward:2: no MRN 'a\rb'"#, #"ward: plugin says \u009B31m"#])
    }
}
