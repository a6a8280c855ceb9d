import Foundation
import Testing

/// `format csv` and `format json` in the records shell, in a real pseudo-terminal.
@Suite(.serialized) struct FormatCommandEndToEndTests {
    @Test func format_changesTheTables_untilChangedBack() throws {
        let t = try TerminalHarness()
        try t.signOn()
        try t.type("format csv")
        try t.press("Enter")
        try t.waitFor("Tables are shown as csv.")
        try t.type("find alvarez")
        try t.press("Enter")
        try t.waitFor("W0000011,\"Alvarez, Brandon\",")
        try t.type("format json")
        try t.press("Enter")
        try t.type("find alvarez")
        try t.press("Enter")
        try t.waitFor("\"mrn\":\"W0000011\"")
        try t.type("format text")
        try t.press("Enter")
        try t.waitFor("Tables are shown as text.")
        try t.press("C-d")
        #expect(try t.waitForExit() == 0)
    }
}
