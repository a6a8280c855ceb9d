import Testing
import WardShell

@Suite struct TextTableTests {
    @Test func aligns_columns_andTrimsTrailingSpace() {
        let table = TextTable(headers: ["A", "BB"], rows: [["xxx", "y"], ["", "zz"]])
        #expect(table.render(width: 80) == ["A    BB", "xxx  y", "     zz"])
    }

    @Test func shrinks_theWidestColumn_toFit() {
        let table = TextTable(headers: ["ID", "TEXT"], rows: [["1", String(repeating: "w", count: 50)]])
        let lines = table.render(width: 20)
        #expect(lines.allSatisfy { $0.count <= 20 })
        #expect(lines[1] == "1   " + String(repeating: "w", count: 15) + "…")
    }

    @Test func flattens_newlinesInCells() {
        #expect(TextTable(headers: ["N"], rows: [["a\nb"]]).render(width: 80) == ["N", "a b"])
    }
}
