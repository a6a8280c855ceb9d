import Testing

@testable import WardShell

@Suite struct TextTableTests {
    @Test func expanded_showsEachRowAsItsFields_oneALine_wrappingNotCutting() {
        let table = TextTable(
            headers: ["TIME", "MEASUREMENT", "VALUE"],
            rows: [
                ["2020-05-06", "Hemoglobin A1c/Hemoglobin.total in Blood by calculation", "5.4"],
                ["", "Pulse", "\u{1B}72"],
            ]
        )
        #expect(
            table.render(width: 40, layout: .expanded) == [
                "-[ RECORD 1 ]" + String(repeating: "-", count: 21),
                "TIME        | 2020-05-06",
                "MEASUREMENT | Hemoglobin",
                "            | A1c/Hemoglobin.total in",
                "            | Blood by calculation",
                "VALUE       | 5.4",
                "-[ RECORD 2 ]" + String(repeating: "-", count: 21),
                "TIME        |",
                "MEASUREMENT | Pulse",
                "VALUE       | \\e72",
            ]
        )
        #expect(table.render(width: 40) != table.render(width: 40, layout: .expanded))
    }

    @Test func aligns_columns_andTrimsTrailingSpace() {
        let table = TextTable(headers: ["A", "BB"], rows: [["xxx", "y"], ["", "zz"]])
        #expect(table.render(width: 80) == ["A    BB", "xxx  y", "     zz"])
    }

    /// A line drops its trailing spaces as removing its last character while it is `" "` would:
    /// a cell's own trailing spaces go too, but not the space a prepended mark (U+0600) takes
    /// into its character.
    @Test func trimsTrailingSpaces_asRemovingSpaceCharactersWould() {
        for line in [
            "", "   ", "a", "a  ", "ab c  ", "\u{600}  ", "x\u{600}   ", "山田  ", "e\u{301} ", "\u{600}\u{600} ",
        ] {
            var expected = line
            while expected.hasSuffix(" ") { expected.removeLast() }
            #expect(TextTable.trimmingTrailingSpaces(Array(line.utf8)) == expected)
        }
        let table = TextTable(headers: ["A", "B", "C"], rows: [["y ", "", ""]])
        #expect(table.render(width: 80) == ["A   B  C", "y"])
    }

    @Test func shrinks_theWidestColumn_toFit() {
        let table = TextTable(headers: ["ID", "TEXT"], rows: [["1", String(repeating: "w", count: 50)]])
        let lines = table.render(width: 20)
        #expect(lines.allSatisfy { $0.count <= 20 })
        #expect(lines[1] == "1   " + String(repeating: "w", count: 15) + "…")
    }

    @Test func measuresDisplayWidth_soCJKAndCombiningCharactersAlign() {
        // 山田 takes four columns; "José" written with a combining acute takes four.
        let table = TextTable(headers: ["NAME", "MRN"], rows: [["山田", "M1"], ["Jose\u{301}", "M2"], ["Ng", "M3"]])
        #expect(table.render(width: 80) == ["NAME  MRN", "山田  M1", "Jose\u{301}  M2", "Ng    M3"])
    }

    @Test func cutsAWideCell_byColumns_notCharacters() {
        #expect(TextTable.fit("山田太郎", 5) == "山田…")
        // 太 does not fit in the one column left: the cell is padded to its width instead.
        #expect(TextTable.fit("山田太郎", 6) == "山田… ")
        #expect(TextTable.fit("山田太郎", 8) == "山田太郎")
        #expect(TextTable.fit("abcdef", 4) == "abc…")
    }

    @Test func showsNewlinesAndTabsInCells_asEscapes() {
        #expect(TextTable(headers: ["N"], rows: [["a\nb\tc"]]).render(width: 80) == ["N", #"a\nb\tc"#])
    }

    @Test func measuresTheSanitizedCell_soColumnsStayAligned() {
        let table = TextTable(headers: ["NAME", "MRN"], rows: [["a\u{1B}[2Jb", "M1"], ["abcdefghij", "M2"]])
        let lines = table.render(width: 80)
        #expect(lines == ["NAME        MRN", #"a\e[2Jb     M1"#, "abcdefghij  M2"])
        #expect(!lines.joined().contains("\u{1B}"))
    }

    @Test func paragraphs_keepANewlineAsALineBreak_butShowCarriageReturnsAndEscapes() {
        let table = TextTable(
            headers: ["TIME", "AUTHOR", "NOTE"],
            rows: [["t\u{1B}]0;x\u{07}", "bob", "one\ntwo\rEVIL\u{202E}"]],
            layout: .paragraphs
        )
        #expect(table.render(width: 80) == [#"t\e]0;x\a  bob"#, "  one", #"  two\rEVIL\u202E"#])
    }
}
