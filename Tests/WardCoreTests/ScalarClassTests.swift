import Foundation
import Testing
import WardCore

/// The classes stand in for Foundation's `CharacterSet`s, so they are checked against them.
@Suite struct ScalarClassTests {
    /// Every separator Unicode has is in the Basic Multilingual Plane, so this covers them all.
    static let basicPlane = (0...0xFFFF).compactMap(Unicode.Scalar.init(_:))

    @Test func whitespace_isWhatCharacterSetWhitespacesHolds() {
        let differing = Self.basicPlane.filter {
            ScalarClass.whitespace.contains($0) != CharacterSet.whitespaces.contains($0)
        }
        #expect(differing.isEmpty, "\(differing.map { String($0.value, radix: 16) })")
    }

    @Test func whitespaceOrNewline_isWhatCharacterSetWhitespacesAndNewlinesHolds() {
        let differing = Self.basicPlane.filter {
            ScalarClass.whitespaceOrNewline.contains($0) != CharacterSet.whitespacesAndNewlines.contains($0)
        }
        #expect(differing.isEmpty, "\(differing.map { String($0.value, radix: 16) })")
    }

    /// The runtime's Unicode may be newer than Foundation's tables: it may add, never drop.
    @Test func alphanumeric_holdsEveryScalarCharacterSetAlphanumericsHolds() {
        let missing = Self.basicPlane.filter {
            CharacterSet.alphanumerics.contains($0) && !ScalarClass.alphanumeric.contains($0)
        }
        #expect(missing.isEmpty, "\(missing.map { String($0.value, radix: 16) })")
    }

    @Test func alphanumeric_keepsLettersMarksAndDigitsOfEveryScript_andDropsPunctuationAndSymbols() {
        let kept = "Ünï-cødé_٣ ǅ ⅻ ½ 𝟘 a\u{301}!€".unicodeScalars.filter(ScalarClass.alphanumeric.contains)
        #expect(String(String.UnicodeScalarView(kept)) == "Ünïcødé٣ǅⅻ½𝟘a\u{301}")
    }

    @Test func trimming_removesOnlyTheClassAtEitherEnd() {
        #expect("\u{3000}\t\u{A0} note\u{2009}text \u{202F}".trimming(.whitespace) == "note\u{2009}text")
        #expect(" .\n".trimming(.whitespace) == ".\n")
        #expect("\u{2028}\r\n\u{85} x \u{2029}\u{0B}".trimming(.whitespaceOrNewline) == "x")
        #expect(" \u{200B} ".trimming(.whitespace).isEmpty)
        #expect("".trimming(.whitespaceOrNewline).isEmpty)
    }

    @Test func trimming_worksScalarByScalar_asFoundationDid() {
        let text = " \u{301}é\u{A0}"
        #expect(text.trimming(.whitespace) == text.trimmingCharacters(in: .whitespaces))
        #expect(text.trimming(.whitespace).unicodeScalars.first == "\u{301}")
        #expect("a; b".split(separator: ";")[1].trimming(.whitespace) == "b")
    }
}
