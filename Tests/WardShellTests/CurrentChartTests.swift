import Foundation
import Testing
import WardCore
import WardRecords

@testable import WardShell

/// A command acts only on the chart the user last opened: every way an `open` can fail, and
/// `close`, leave no chart current, and a command that needs one writes nothing anywhere.
@Suite struct CurrentChartTests {
    /// Each way an `open` can fail to open the chart asked for, after `open M1` succeeded.
    static let failedOpens: [(name: String, lines: [String])] = [
        ("an unknown MRN", ["open W9999999"]),
        ("an ambiguous prefix", ["open M"]),
        ("a row no find listed", ["open #7"]),
        ("a usage error", ["open #x"]),
        ("a restricted chart without a reason, at once", ["open M3 --reason '   '"]),
        ("a restricted chart whose reason was not given", ["open M3", ""]),
    ]

    @Test(arguments: failedOpens.map(\.name))
    func aFailedOpen_leavesNoChartCurrent_andNoteWritesNothing(_ name: String) throws {
        let lines = try #require(Self.failedOpens.first { $0.name == name }).lines
        let f = try ShellFixture()
        f.run("open M1")
        let opened = f.run(lines[0]).result
        if lines.count > 1 { #expect(f.shell.answer(lines[1]) == .failed) } else { #expect(opened == .failed) }
        #expect(f.shell.currentMRN == nil)
        #expect(f.shell.prompt == "ward> ")
        for command in ["note Meant for the other patient.", "show", "show notes", "note"] {
            let (result, output) = f.run(command)
            #expect(result == .missingContext, "\(command)")
            #expect(output.hasPrefix("ward: no chart is current (1 chart is open: 'charts' lists them)."))
        }
        for mrn in ["M1", "M2", "M3"] { #expect(try f.store.chart(mrn: mrn).notes.isEmpty) }
    }

    @Test func aFailedStore_leavesNoChartCurrent() throws {
        let f = try ShellFixture()
        f.run("open M1")
        f.store.close()
        #expect(f.run("open M2").result == .failed)
        try f.store.reopen()
        #expect(f.run("note Meant for M2.").result == .missingContext)
        #expect(try f.store.chart(mrn: "M1").notes.isEmpty)
    }

    @Test func closingTheCurrentChart_makesNoOtherCurrent() throws {
        let f = try ShellFixture()
        f.run("open M1")
        f.run("open M2")
        #expect(
            f.run("close").output == "Closed M2 (Babbage, Charles). No chart is current: 'charts' lists the open ones."
        )
        #expect(f.shell.currentMRN == nil && f.shell.charts.map(\.mrn) == ["M1"])
        #expect(f.run("note Meant for M2.").result == .missingContext)
        #expect(f.run("open 1").result == .failed, "no find listed rows; 1 is no MRN either")
        #expect(f.run("open M1").result == .succeeded)
        #expect(f.run("note Now for M1.").result == .succeeded)
        #expect(try f.store.chart(mrn: "M1").notes.map(\.text) == ["Now for M1."])
        #expect(try f.store.chart(mrn: "M2").notes.isEmpty)
    }

    @Test func openHelp_choosesNothing() throws {
        let f = try ShellFixture()
        f.run("open M1")
        #expect(f.run("open --help").result == .succeeded)
        #expect(f.shell.currentMRN == "M1")
    }

    @Test func theCurrentChart_isNamedByFamilyNameAndMRN_inTheFortyColumnsOfThePrompt() throws {
        let f = try ShellFixture()
        f.run("open M2")
        #expect(f.shell.prompt == "ward [Babbage M2]> ")
        let long = Patient(
            mrn: "475d72ca-9b2e-4c1e-8a57-0123456789ab",
            given: "Siobhán",
            family: "O'Brien-Fitzgerald de la Cruz",
            birthDate: "",
            sex: .unknown
        )
        let label = "[\(PatientLabel.short(long))]"
        #expect(label == "[O'Brien-Fitzger… 475d72ca-9b…]")
        #expect(DisplayWidth.of("ward \(label)> ") <= 40)
        let hostile = Patient(
            mrn: "M9",
            given: "",
            family: "\u{1B}[2J\u{1B}]52;c;QQ==\u{07}",
            birthDate: "",
            sex: .unknown
        )
        #expect(DisplayWidth.of(Sanitizer.line("ward [\(PatientLabel.short(hostile))]> ")) <= 40)
    }
}

/// Text that is the rest of the line is kept exactly as typed.
@Suite struct VerbatimTextTests {
    @Test(arguments: [
        "Mother's fever since Tuesday.",
        #"Dx "viral URI", r/o strep"#,
        "BP  120/80   (sitting)",
        #"C:\path \n is not a newline; 'unclosed "quotes"#,
        "-- seen -- stable --help",
    ])
    func aNote_isStoredAsTyped(_ text: String) throws {
        let f = try ShellFixture()
        f.run("open M1")
        #expect(f.run("note \(text)").result == .succeeded)
        #expect(try f.store.chart(mrn: "M1").notes.map(\.text) == [text])
    }

    @Test func aNoteOfSeveralLines_endsAtADotAlone_andKeepsItsLineBreaks() throws {
        let f = try ShellFixture()
        f.run("open M1")
        #expect(f.run("note").result == .readsText("note> "))
        #expect(f.shell.answer("Seen in clinic.") == .readsText("note> "))
        #expect(f.shell.answer("") == .readsText("note> "))
        #expect(f.shell.answer("  # Plan: 'rest', fluids.") == .readsText("note> "))
        #expect(f.shell.answer(" . ") == .succeeded)
        #expect(try f.store.chart(mrn: "M1").notes.map(\.text) == ["Seen in clinic.\n\n  # Plan: 'rest', fluids."])
    }

    @Test func aNoteOfSeveralLines_isNotSaved_whenItsEndNeverComes_orALockWipesIt() throws {
        let f = try ShellFixture()
        f.run("open M1")
        f.run("note")
        #expect(f.shell.answer("half a note") == .readsText("note> "))
        #expect(f.shell.answer(nil) == .failed)
        f.run("note")
        _ = f.shell.answer("half a note")
        f.shell.wipe()
        f.lines = []
        f.shell.signedOn(user: "alice", role: .clinician)
        #expect(f.lines.first == "The note you were typing when the session locked was not saved; type it again.")
        f.lines = []
        #expect(f.shell.answer(".") == .failed)
        #expect(f.lines.joined().contains("nothing of it was saved"))
        #expect(try f.store.chart(mrn: "M1").notes.isEmpty)
    }

    @Test func theReason_isTheRestOfTheLine() throws {
        let f = try ShellFixture()
        #expect(f.run("open M3 --reason Mother's request, \"urgent\"").result == .succeeded)
        #expect(f.shell.lastBreakGlass?.reason == #"Mother's request, "urgent""#)
        f.run("close")
        #expect(f.run("open M3 --reason='on call'").result == .succeeded)
        #expect(f.shell.lastBreakGlass?.reason == "on call")
    }

    @Test func find_takesApostrophesAndQuotes_asTyped() throws {
        let f = try ShellFixture()
        #expect(f.run("find lovelace's").result == .succeeded)
        #expect(f.run(#"find "lovelace""#).output.contains("M1"))
        #expect(f.run("find ada    lovelace").output.contains("M1"))
    }

    @Test func anUnclosedQuote_isReportedWithOneBackslash_whereQuotesStillCount() throws {
        let f = try ShellFixture()
        let output = f.run("close 'M1").output
        #expect(output == "ward: a quote is not closed: close it, or put a backslash before it")
    }
}
