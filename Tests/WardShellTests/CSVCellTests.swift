import Testing

@testable import WardShell

/// A CSV cell's control characters: escaped as on the terminal, but for a line feed, which stays
/// inside the quoted cell (RFC 4180), as ward(1) says.
@Suite struct CSVCellTests {
    @Test func aLineFeed_staysInTheQuotedCell_andOtherControlsAreEscaped() {
        #expect(CSV.cell("first line\nsecond line") == "\"first line\nsecond line\"")
        #expect(CSV.cell("a\rb\tc\u{1B}[2J") == #"a\rb\tc\e[2J"#)
    }
}
