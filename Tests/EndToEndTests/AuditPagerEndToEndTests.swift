import Foundation
import Testing

/// `ward audit show` and `ward audit report` at a terminal (tmux): text taller than the window is
/// paged by Ward's own pager, the table's header kept on every page, as the shell pages its
/// tables; q leaves the last page in view and the terminal as it was. Off a terminal the same
/// text is printed whole, with no escape sequence.
@Suite(.serialized) struct AuditPagerEndToEndTests {
    /// The home of `AuditQuestionsEndToEndTests`, its batch's records in the log.
    static func home() throws -> BatchHome { try AuditQuestionsEndToEndTests.home() }

    static func lines(_ screen: String) -> [String] {
        screen.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    @Test func show_atATerminal_isPaged_withItsHeaderOnEveryPage_andQLeavesTheLastPage() throws {
        let h = try Self.home()
        let whole = try AuditQuestionsEndToEndTests.ward(h, ["audit", "show"])
        #expect(whole.status == 0 && !whole.out.contains("\u{1B}") && !whole.out.contains("-- more --"))
        let rows = whole.out.split(separator: "\n").map(String.init)
        #expect(rows[0].hasPrefix("SEQ  TIME (UTC)") && rows.count > 12)
        // One screen row a record: the pane is wider than the widest.
        try #require(rows.allSatisfy { $0.count < 300 })

        let t = try TerminalHarness(["audit", "show"], environment: h.environment, columns: 300, rows: 12)
        var screen = Self.lines(try t.waitFor("-- more --"))
        #expect(screen[0] == rows[0])
        #expect(screen[1] == rows[1])
        #expect(screen.contains { $0.hasPrefix("-- more -- lines 1-11 of ") })

        try t.press("Space")
        screen = Self.lines(try t.waitFor("-- more -- lines 12-"))
        #expect(screen[0] == rows[0], "the header is kept on top")
        #expect(screen[1] == rows[11])

        try t.press("G")
        try t.waitFor("-- end --")
        try t.press("q")
        #expect(try t.waitForExit() == 0)
        let after = try t.screen()
        #expect(after.contains(rows[rows.count - 1]) && !after.contains("-- end --"))
        #expect(isCooked(try t.terminalModeAfterExit()))
    }

    @Test func report_atATerminal_isPaged_andCtrlCEndsItAsQDoes() throws {
        let h = try Self.home()
        let t = try TerminalHarness(
            ["audit", "report", "--mrn", "w0000011"],
            environment: h.environment,
            columns: 120,
            rows: 6
        )
        let screen = Self.lines(try t.waitFor("-- more --"))
        #expect(screen[0].hasPrefix("Accesses to the record of ") && screen[0].contains("(MRN W0000011)"))
        try t.press("Space")
        let next = Self.lines(try t.waitFor("-- end --"))
        #expect(next[0].hasPrefix("  TIME "), "the day's header is kept on top")
        try t.press("C-c")
        #expect(try t.waitForExit() == 0)
        #expect(isCooked(try t.terminalModeAfterExit()))
    }
}
