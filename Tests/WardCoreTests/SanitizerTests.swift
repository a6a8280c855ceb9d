import Foundation
import Testing
import WardCore

@Suite struct SanitizerTests {
    @Test(arguments: [
        ("\u{00}", #"\0"#), ("\u{07}", #"\a"#), ("\u{08}", #"\b"#), ("\t", #"\t"#), ("\n", #"\n"#),
        ("\u{0B}", #"\v"#), ("\u{0C}", #"\f"#), ("\r", #"\r"#), ("\u{1B}", #"\e"#), ("\u{01}", #"\x01"#),
        ("\u{1F}", #"\x1F"#), ("\u{7F}", #"\x7F"#), ("\\", #"\\"#),
    ])
    func showsEveryASCIIControl_andTheBackslash_asAnEscape(_ raw: String, _ shown: String) {
        #expect(Sanitizer.line("a" + raw + "b") == "a" + shown + "b")
    }

    @Test func showsEveryC0AndC1Control_andNothingElseOfThem_unescaped() {
        for value in Array(0x00...0x1F) + Array(0x7F...0x9F) {
            let scalar = Unicode.Scalar(UInt32(value))!
            let shown = Sanitizer.line("x" + String(Character(scalar)) + "y")
            #expect(shown.hasPrefix("x\\") && shown.hasSuffix("y"), "U+\(String(value, radix: 16))")
            #expect(!shown.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
        }
    }

    @Test func showsC1Controls_asUnicodeEscapes() {
        #expect(Sanitizer.line("\u{9B}2J") == #"\u009B2J"#)
        #expect(Sanitizer.line("a\u{85}b") == #"a\u0085b"#)
        #expect(Sanitizer.line("\u{80}\u{9F}") == #"\u0080\u009F"#)
    }

    @Test(arguments: [
        0x061C, 0x200E, 0x200F, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069, 0x2028,
        0x2029,
    ])
    func showsBidiControlsAndLineSeparators_asUnicodeEscapes(_ value: Int) {
        let scalar = Unicode.Scalar(UInt32(value))!
        let digits = String(value, radix: 16, uppercase: true)
        let hex = String(repeating: "0", count: 4 - digits.count) + digits
        #expect(Sanitizer.line("n" + String(Character(scalar)) + "m") == "n\\u" + hex + "m")
    }

    @Test func leavesPrintableTextOfAnyScript_asItIs() {
        let texts = ["Ada Lovelace", "Zoë Ünal", "مريض", "患者", "", "a—b…", "€ ↑ ✓", "🧑🏽‍⚕️"]
        for text in texts {
            #expect(Sanitizer.line(text) == text)
            #expect(!Sanitizer.needsEscaping(text))
        }
        // Neighbours of the escaped characters share their lead bytes but are printable.
        #expect(
            Sanitizer.line("\u{A0}\u{A9}\u{0600}\u{061B}\u{2010}\u{2027}\u{202F}\u{2065}\u{206A}")
                == "\u{A0}\u{A9}\u{0600}\u{061B}\u{2010}\u{2027}\u{202F}\u{2065}\u{206A}"
        )
    }

    @Test func textMode_keepsLineFeeds_butEscapesCarriageReturnsAndEverythingElse() {
        #expect(Sanitizer.text("one\ntwo") == "one\ntwo")
        #expect(Sanitizer.text("one\r\ntwo\u{1B}[2J") == #"one\r"# + "\n" + #"two\e[2J"#)
        #expect(Sanitizer.line("one\ntwo") == #"one\ntwo"#)
    }

    @Test func showsTheIssuesPayloads_soAReaderCanTellWhatWasThere() {
        #expect(Sanitizer.line("\u{1B}]0;title\u{07}") == #"\e]0;title\a"#)
        #expect(Sanitizer.line("\u{1B}]52;c;cm0gLXJmIH4=\u{07}") == #"\e]52;c;cm0gLXJmIH4=\a"#)
        #expect(Sanitizer.line("safe\rEVIL") == #"safe\rEVIL"#)
        #expect(Sanitizer.line("abc\u{08}\u{08}\u{08}xyz") == #"abc\b\b\bxyz"#)
        #expect(Sanitizer.line("nul\u{0}byte") == #"nul\0byte"#)
        #expect(Sanitizer.line("\u{202E}txt.exe") == #"\u202Etxt.exe"#)
    }

    @Test func doublesABackslash_soLiteralEscapeTextNeverPassesForAControl() {
        #expect(Sanitizer.line(#"\e[2J"#) == #"\\e[2J"#)
        #expect(Sanitizer.line("\u{1B}[2J") != Sanitizer.line(#"\e[2J"#))
    }

    @Test func returnsTheSameString_whenNothingNeedsEscaping() {
        let text = String(repeating: "Lovelace, Ada — 1815-12-10 ", count: 100)
        let shown = Sanitizer.line(text)
        #expect(shown == text)
        // No copy: the very same storage comes back.
        #expect(
            shown.utf8.withContiguousStorageIfAvailable { $0.baseAddress }
                == text.utf8.withContiguousStorageIfAvailable { $0.baseAddress }
        )
    }

    @Test func escapesAControlAtTheVeryEnd_andALeadByteCutShort() {
        #expect(Sanitizer.line("abc\u{1B}") == #"abc\e"#)
        #expect(Sanitizer.line("\u{9B}") == #"\u009B"#)
        #expect(Sanitizer.line("") == "")
    }

    @Test func handlesAMebibyteOfControls() {
        let text = String(repeating: "\u{1B}[2J\u{9B}\u{202E}x", count: 1 << 17)
        let shown = Sanitizer.line(text)
        #expect(shown.utf8.count == (5 + 6 + 6 + 1) * (1 << 17))
        #expect(!shown.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x9B || $0.value == 0x202E })
    }

    @Test func jsonEscapesDelC1AndBidi_asUnicodeEscapes_andKeepsJSONValid() throws {
        let value = "a\u{7F}b\u{9B}c\u{202E}d\u{2066}e\u{85}f\\g\"h\u{1B}i\u{0}j"
        let encoded = String(decoding: try JSONEncoder().encode([value]), as: UTF8.self)
        let escaped = Sanitizer.json(encoded)
        #expect(escaped.contains(#"\u007f"#) && escaped.contains(#"\u009b"#) && escaped.contains(#"\u202e"#))
        #expect(escaped.contains(#"\u2066"#) && escaped.contains(#"\u0085"#))
        #expect(!escaped.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
        #expect(!escaped.unicodeScalars.contains { (0x202A...0x202E).contains($0.value) })
        let decoded = try JSONDecoder().decode([String].self, from: Data(escaped.utf8))
        #expect(decoded == [value])
    }

    @Test func jsonWithoutControls_comesBackAsItWas() {
        let json = #"{"name":"Zoë \\ Ünal","n":1}"#
        #expect(Sanitizer.json(json) == json)
    }
}
