import Foundation
import Testing
import WardCore
import WardRecords
import WardShell

@Suite struct FindCommandTests {
    @Test func find_byNamePrefix_listsRowMRNNameBirthDateAndSex() throws {
        let f = try ShellFixture()
        let (result, output) = f.run("find lov")
        #expect(result == .succeeded)
        let lines = output.split(separator: "\n").map(String.init)
        #expect(lines.first == "#  MRN  NAME" + String(repeating: " ", count: 19) + "BORN        SEX")
        #expect(lines.dropFirst().first == "1  M1   Lovelace, Ada Augusta  1815-12-10  female")
        #expect(lines.count == 2)
    }

    @Test func find_bySeveralWords_inAnyOrder() throws {
        let f = try ShellFixture()
        #expect(f.run("find ada lov").output.contains("M1"))
        #expect(!f.run("find ada bab").output.contains("M"))
    }

    @Test func find_byMRN() throws {
        let f = try ShellFixture()
        let output = f.run("find M2").output
        #expect(output.contains("Babbage, Charles") && output.contains("male"))
    }

    @Test func find_marksRestrictedPatients() throws {
        let f = try ShellFixture()
        let output = f.run("find hopper").output
        #expect(output.contains("M3") && output.contains("(R)"))
        #expect(output.contains("(R) restricted"))
    }

    @Test func find_nothing_saysSo_andNoTextIsAUsageError() throws {
        let f = try ShellFixture()
        #expect(f.run("find zzz") == (.succeeded, "No patient matches. Try fewer letters, or fewer words."))
        #expect(f.run("find").result == .failed)
    }

    @Test func find_inAHomeWithoutRecords_saysHowToMakeThem() {
        var lines: [String] = []
        let shell = Shell(output: { lines.append($0) })
        shell.signedOn(user: "alice", role: .clinician)
        #expect(shell.run(Line("find ada")) == .failed)
        #expect(lines.last?.contains("'ward demo'") == true && lines.last?.contains("'ward import PATH'") == true)
    }

    @Test func sqliteRecords_withoutRecordsFile_createsNone() throws {
        let home = NSTemporaryDirectory() + "ward-shell-empty-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: home) }
        let shell = try Shell(records: .sqlite(WardHome(path: home)))
        shell.signedOn(user: "alice", role: .clinician)
        #expect(shell.run(Line("open M1")) == .failed)
        #expect(!FileManager.default.fileExists(atPath: home + "/" + SQLiteRecordStore.fileName))
    }
}

@Suite struct OpenCommandTests {
    @Test func open_loadsTheChart_andNamesItInThePrompt() throws {
        let f = try ShellFixture()
        #expect(f.shell.prompt == "ward> ")
        let (result, output) = f.run("open m1")
        #expect(result == .succeeded)
        #expect(output == "Opened M1: Lovelace, Ada Augusta, born 1815-12-10, female.")
        #expect(f.shell.prompt == "ward [Lovelace M1]> ")
        #expect(f.shell.charts.map(\.mrn) == ["M1"])
        #expect(f.shell.charts.first?.observations.count == 4)
    }

    @Test func open_unknownMRN_fails_namingOnlyTheMRN() throws {
        let f = try ShellFixture()
        #expect(f.run("open X99") == (.failed, "ward: no patient has the MRN 'X99'. Use 'find' to look it up."))
        #expect(f.shell.charts.isEmpty)
    }

    @Test func open_aName_isLookedUpAsAnMRN_andFindIsSuggested() throws {
        let f = try ShellFixture()
        let (result, output) = f.run("open lovelace")
        #expect(result == .failed)
        #expect(output == "ward: no patient has the MRN 'lovelace'. To search by name, use 'find lovelace'.")
    }

    @Test func open_restricted_withoutReason_asksWhy_andLoadsNothingYet() throws {
        let f = try ShellFixture()
        let (result, output) = f.run("open M3")
        #expect(result == .ask("M3 is restricted. Why do you open it? (recorded; empty to cancel) "))
        #expect(output.isEmpty)
        #expect(f.shell.charts.isEmpty && f.shell.lastBreakGlass == nil)
    }

    @Test func open_restricted_theAnswer_opensIt_andIsTheBreakGlassReason() throws {
        let f = try ShellFixture()
        f.run("open M3")
        #expect(f.shell.answer("  on call, chest pain ") == .succeeded)
        #expect(f.shell.currentMRN == "M3")
        #expect(f.shell.lastBreakGlass?.reason == "on call, chest pain")
        #expect(
            f.shell.takeSessionEvents() == [
                .accessed(RecordAccess(.brokeGlass, record: "M3", detail: "on call, chest pain", outcome: .ok)),
                .accessed(RecordAccess(.opened, record: "M3", outcome: .ok)),
            ]
        )
    }

    @Test(arguments: [nil, "", "   "] as [String?])
    func open_restricted_noAnswer_opensNothing_andSaysHowToGiveTheReason(answer: String?) throws {
        let f = try ShellFixture()
        f.run("open M3")
        f.lines.removeAll()
        #expect(f.shell.answer(answer) == .failed)
        #expect(f.lines.joined().contains("M3 was not opened") && f.lines.joined().contains("open M3 --reason"))
        #expect(f.shell.charts.isEmpty)
        #expect(f.shell.takeSessionEvents() == [.accessed(RecordAccess(.opened, record: "M3", outcome: .denied))])
    }

    @Test func aQuestion_isForgotten_byTheNextCommand_andByAWipe() throws {
        let f = try ShellFixture()
        f.run("open M3")
        f.run("whoami")
        #expect(f.shell.answer("on call") == .failed)
        f.run("open M3")
        f.shell.wipe()
        #expect(f.shell.answer("on call") == .failed)
        #expect(f.shell.charts.isEmpty)
    }

    @Test func open_restricted_withReason_opens_andKeepsTheReason() throws {
        let f = try ShellFixture()
        #expect(f.run("open M3 --reason 'on call, chest pain'").result == .succeeded)
        #expect(
            f.shell.lastBreakGlass
                == BreakGlass(mrn: "M3", user: "alice", reason: "on call, chest pain", time: ShellFixture.fixedNow)
        )
        #expect(f.shell.prompt == "ward [Hopper M3]> ")
    }

    @Test func open_again_readsTheChartAgain_inItsPlace_andMakesItCurrent() throws {
        let f = try ShellFixture()
        f.run("open M1")
        let first = try #require(f.shell.charts.first)
        f.run("open M2")
        _ = try f.store.addNote(mrn: "M1", author: "bob", text: "Written on another host.", at: ShellFixture.fixedNow)
        #expect(
            f.run("open M1").output
                == "M1 (Lovelace, Ada Augusta) was open; read again, it is the current chart."
        )
        #expect(f.shell.charts.map(\.mrn) == ["M1", "M2"] && f.shell.currentMRN == "M1")
        #expect(first.isWiped, "the copy read before is wiped, not kept beside the new one")
        #expect(f.run("show notes").output.contains("Written on another host."))
    }
}

@Suite struct ShowCommandTests {
    @Test func show_withoutAChart_saysHowToOpenOne() throws {
        let f = try ShellFixture()
        let (result, output) = f.run("show")
        #expect(result == .missingContext)
        #expect(output.hasPrefix("ward: no chart is current."))
    }

    @Test func show_summary_isTheDefault() throws {
        let f = try ShellFixture()
        f.run("open M1")
        let output = f.run("show").output
        #expect(output == f.run("show summary").output)
        #expect(output.contains("Name            Lovelace, Ada Augusta"))
        #expect(output.contains("Allergies       1"))
        #expect(output.contains("Labs            1"))
    }

    /// The cover sheet: the age beside the birth date, then the active problems, medications and
    /// allergies, a clinician's first look.
    @Test func show_summary_givesTheAge_andTheActiveProblemsMedicationsAndAllergies() throws {
        let f = try ShellFixture()
        f.run("open M1")
        let output = f.run("show").output
        // Born 1815-12-10; the fixture's clock reads 2023-11-14.
        #expect(output.contains("Born            1815-12-10\nAge             207 years\n"), "\(output)")
        #expect(output.contains("Active problems     Diabetes"), "\(output)")
        #expect(output.contains("Active medications  metformin, twice daily"), "\(output)")
        #expect(output.contains("Allergies           Peanut (high)"), "\(output)")
    }

    @Test func show_summary_ofAClerk_givesTheAge_butNoClinicalList() throws {
        let f = try ShellFixture(role: .clerk, user: "bob")
        f.run("open M1")
        let output = f.run("show").output
        #expect(output.split(separator: "\n").contains { $0.hasPrefix("Age ") && $0.hasSuffix(" 207 years") })
        #expect(!output.contains("Active problems") && !output.contains("Diabetes"))
    }

    @Test func show_eachSection_printsItsTable() throws {
        let f = try ShellFixture()
        f.run("open M1")
        let expected: [String: [String]] = [
            "allergies": ["SUBSTANCE", "Peanut", "high"],
            "meds": ["MEDICATION", "metformin", "twice daily"],
            "problems": ["PROBLEM", "Diabetes", "active"],
            // A time says its zone: ISO 8601 in UTC, whatever the machine's zone.
            "vitals": ["MEASUREMENT", "Heart rate", "72", "/min", "2020-05-06T07:08Z"],
            "labs": ["Hemoglobin A1c", "6.4", "%"],
            "encounters": ["CLASS", "AMB", "Encounter for check up"],
        ]
        for (section, words) in expected {
            let (result, output) = f.run("show \(section)")
            #expect(result == .succeeded, "\(section)")
            for word in words { #expect(output.contains(word), "\(section): \(word)") }
        }
        #expect(!f.run("show vitals").output.contains("Hemoglobin"))
        #expect(f.run("show notes").output == "No notes in this chart.")
        #expect(f.run("show nonsense").result == .failed)
    }

    @Test func show_expanded_showsEveryFieldUncut_evenWhereTheTableCutsIt() throws {
        let f = try ShellFixture()
        f.run("open M1")
        f.width = 40
        let output = f.run("show encounters --expanded").output
        #expect(output.hasPrefix("-[ RECORD 1 ]"))
        #expect(!output.contains("…"))
        #expect(output.contains("VISIT  | Encounter for check up"))
        for line in output.split(separator: "\n") { #expect(line.count <= 40) }
    }

    @Test func help_andTheBanner_breakBetweenWords_at80ColumnsAndLess() throws {
        let f = try ShellFixture()
        for width in [80, 60, 40] {
            f.width = width
            for command in ["help", "help show", "help find"] {
                let output = f.run(command).output
                let lines = output.split(separator: "\n", omittingEmptySubsequences: false)
                #expect(lines.allSatisfy { $0.count <= width }, "\(command) at \(width): \(output)")
                // Every word whole: the words of the text, whatever the breaks.
                f.width = 10_000
                let unbroken = f.run(command).output
                f.width = width
                #expect(
                    output.split(whereSeparator: \.isWhitespace) == unbroken.split(whereSeparator: \.isWhitespace),
                    "\(command) at \(width)"
                )
            }
        }
    }

    @Test func show_fitsTheTerminalWidth_truncatingCells() throws {
        let f = try ShellFixture()
        f.run("open M1")
        f.width = 30
        let output = f.run("show encounters").output
        for line in output.split(separator: "\n") { #expect(line.count <= 30) }
        #expect(output.contains("…"))
    }
}

@Suite struct NoteCommandTests {
    @Test func note_isSavedSignedAndTimed_andShownAtOnce() throws {
        let f = try ShellFixture()
        f.run("open M1")
        let (result, output) = f.run("note Seen in clinic -- stable, no change.")
        #expect(result == .succeeded)
        #expect(
            output.hasPrefix("Note added to M1 (Lovelace, Ada Augusta) at ") && output.hasSuffix(", signed alice.")
        )
        let saved = try f.store.chart(mrn: "M1").notes
        #expect(
            saved == [
                Note(
                    author: "alice",
                    time: ShellFixture.fixedNow,
                    text: "Seen in clinic -- stable, no change.",
                    id: saved.first?.id
                )
            ]
        )
        let shown = f.run("show notes").output
        #expect(shown.contains("alice") && shown.contains("Seen in clinic -- stable, no change."))
    }

    @Test func note_withoutAChart_orWithBlankText_fails() throws {
        let f = try ShellFixture()
        #expect(f.run("note hello").result == .missingContext)
        #expect(f.run("note").result == .missingContext)
        f.run("open M1")
        #expect(f.run("note    ").result == .readsText("note> "), "blank text reads a note of several lines")
        #expect(f.shell.answer(".") == .failed)
        #expect(try f.store.chart(mrn: "M1").notes.isEmpty)
    }
}

@Suite struct CorrectCommandTests {
    @Test func correct_addsANoteNamingTheOneItCorrects_shownBesideIt_theOriginalUnchanged() throws {
        let f = try ShellFixture()
        f.run("open M1")
        f.run("note Dose 50 mg.")
        let original = try #require(f.store.chart(mrn: "M1").notes.first?.id)
        let (result, output) = f.run("correct \(original)   Dose 5 mg, not 50.")
        #expect(result == .succeeded)
        #expect(output.hasPrefix("Correction of note \(original) added to M1 (Lovelace, Ada Augusta) at "), "\(output)")
        let notes = try f.store.chart(mrn: "M1").notes
        #expect(notes.map(\.text) == ["Dose 50 mg.", "Dose 5 mg, not 50."])
        #expect(notes.last?.corrects == original)
        let shown = f.run("show notes").output
        let correction = try #require(notes.last?.id)
        #expect(
            shown.contains("\(correction) corrects \(original)")
                && shown.contains("\(original) corrected by \(correction)")
        )
    }

    @Test func correct_ofANoteNotInTheChart_orWithoutANumber_addsNothing() throws {
        let f = try ShellFixture()
        f.run("open M1")
        #expect(f.run("correct 424242 Wrong.").result == .failed)
        #expect(f.run("correct Wrong.").result == .failed)
        #expect(f.run("correct").result == .failed)
        #expect(try f.store.chart(mrn: "M1").notes.isEmpty)
    }
}

@Suite struct CloseAndChartsCommandTests {
    @Test func charts_listsLoadedCharts_markingTheCurrent() throws {
        let f = try ShellFixture()
        #expect(f.run("charts").output == "No chart is open. Open one with 'open MRN'.")
        f.run("open M1")
        f.run("open M2")
        let lines = f.run("charts").output.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        #expect(lines[1].hasPrefix("   M1") && lines[2].hasPrefix("*  M2"))
    }

    @Test func close_wipesTheChart_andLeavesNoOtherCurrent() throws {
        let f = try ShellFixture()
        f.run("open M1")
        let first = try #require(f.shell.charts.first)
        f.run("open M2")
        #expect(
            f.run("close M1").output
                == "Closed M1 (Lovelace, Ada Augusta). The current chart is still M2 (Babbage, Charles)."
        )
        #expect(first.isWiped && first.patient == .empty)
        #expect(f.run("close").output == "Closed M2 (Babbage, Charles). No chart is open.")
        #expect(f.shell.charts.isEmpty && f.shell.prompt == "ward> ")
        #expect(f.run("close").result == .missingContext)
        #expect(f.run("close M9").output == "ward: no chart 'M9' is open. 'charts' lists the open ones.")
    }
}
