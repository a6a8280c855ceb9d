import Testing

@testable import WardCore

/// The line `ward exec` rebuilds from the keys, so that a line passes the chain before the key
/// that would run it reaches the program.
struct TypedLineTests {
    private func keys(_ text: String) -> [KeyPress] { text.utf8.map { KeyPress([$0]) } }

    @Test func enter_submitsWhatWasTyped_withBackspaceAndCtrlW() {
        var line = TypedLine()
        for key in keys("select * frm") { #expect(line.take(key) == .relay) }
        _ = line.take(KeyPress([0x7F]))
        _ = line.take(KeyPress([0x7F]))
        for key in keys("rom t; drop x") { _ = line.take(key) }
        _ = line.take(KeyPress([0x17]))  // Ctrl-W: "x"
        _ = line.take(KeyPress([0x17]))  // and "drop "
        #expect(line.take(KeyPress([0x0D])) == .submit(["select * from t; "]))
        line.submitted()
        #expect(line.text == "")
    }

    @Test func ctrlUAndCtrlC_startOver() {
        var line = TypedLine()
        for key in keys("secret") { _ = line.take(key) }
        _ = line.take(KeyPress([0x15]))
        for key in keys("a") { _ = line.take(key) }
        _ = line.take(KeyPress([0x03]))
        for key in keys("b") { _ = line.take(key) }
        #expect(line.take(KeyPress([0x0A])) == .submit(["b"]))
    }

    @Test func ctrlD_afterText_submitsAndKeepsTheLine() {
        var line = TypedLine()
        #expect(line.take(KeyPress([0x04])) == .relay)  // on an empty line: end of input, the program's
        for key in keys("DR") { _ = line.take(key) }
        #expect(line.take(KeyPress([0x04])) == .submit(["DR"]))
        line.submitted()
        for key in keys("OP") { _ = line.take(key) }
        #expect(line.take(KeyPress([0x0D])) == .submit(["DROP"]))  // checked whole, never in halves
    }

    @Test func ctrlO_submits_asReadlineRunsTheLineOnIt() {
        var line = TypedLine()
        for key in keys("ls") { _ = line.take(key) }
        #expect(line.take(KeyPress([0x0F])) == .submit(["ls"]))
    }

    @Test func aPasteWithNewlines_submitsEachLine_andKeepsTheRest() {
        var line = TypedLine()
        for key in keys("one ") { _ = line.take(key) }
        let paste = KeyPress(Array("\u{1B}[200~two\r\nthree\nfour\u{1B}[201~".utf8), isPaste: true)
        #expect(line.take(paste) == .submit(["one two", "three"]))
        line.submitted()
        #expect(line.text == "four")
        #expect(line.take(KeyPress(Array("\u{1B}[200~ five\u{1B}[201~".utf8), isPaste: true)) == .relay)
        #expect(line.text == "four five")
    }

    @Test func escapeSequences_areRelayed_andUTF8Counts() {
        var line = TypedLine()
        #expect(line.take(KeyPress(Array("\u{1B}[A".utf8))) == .relay)
        _ = line.take(KeyPress(Array("é".utf8)))
        _ = line.take(KeyPress(Array("x".utf8)))
        _ = line.take(KeyPress([0x7F]))
        _ = line.take(KeyPress([0x7F]))
        #expect(line.text == "")
        line.wipe()
        #expect(line.bytes.isEmpty)
    }
}
