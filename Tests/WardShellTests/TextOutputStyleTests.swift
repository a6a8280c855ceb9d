import Testing
import WardCore
import WardShell

/// Table headers in colour at a terminal that wants it (`TerminalStyle`), and nowhere else.
@Suite struct TextOutputStyleTests {
    private func printed(_ table: TextTable, style: TerminalStyle, format: BatchOutput.Format = .text) -> [String] {
        var lines: [String] = []
        let output = TextOutput(width: { 80 }, print: { lines.append($0) })
        output.style = style
        output.format = format
        output.table(table)
        return lines
    }

    private let table = TextTable(headers: ["TIME", "VALUE"], rows: [["2020", "\u{1B}[31m"]])

    @Test func theHeaderLine_isBold_whenColourIsOn_andTheCellsStaySanitized() {
        let lines = printed(table, style: TerminalStyle(color: true, bell: false))
        #expect(lines == ["\u{1B}[1mTIME  VALUE\u{1B}[0m", #"2020  \e[31m"#])
    }

    @Test func plain_andJSON_andFieldLayouts_haveNoColour() {
        #expect(!printed(table, style: .plain).joined().contains("\u{1B}"))
        #expect(
            !printed(table, style: TerminalStyle(color: true, bell: true), format: .json).joined().contains("\u{1B}[")
        )
        var fields = table
        fields.layout = .fields
        #expect(!printed(fields, style: TerminalStyle(color: true, bell: false)).joined().contains("\u{1B}"))
    }
}
