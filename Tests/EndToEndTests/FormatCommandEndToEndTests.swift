import Foundation
import Testing

/// `format csv` and `format json` in the records shell, in a real pseudo-terminal (what the
/// tables look like in each is `FormatCommandTests`).
@Suite(.serialized) struct FormatCommandEndToEndTests {
    @Test func format_changesTheTables_untilChangedBack() throws {
        let t = try TerminalHarness()
        try t.signOn()
        try t.type("format csv")
        try t.press("Enter")
        try t.waitFor("Tables are shown as csv.")
        try t.type("format json")
        try t.press("Enter")
        try t.waitFor("Tables are shown as json.")
        try t.type("format text")
        try t.press("Enter")
        try t.waitFor("Tables are shown as text.")
        try t.press("C-d")
        #expect(try t.waitForExit() == 0)
    }
}
