import Testing
import WardCore

/// Prose broken between words at a width, under its own indentation or its term's description.
@Suite struct WordWrapTests {
    @Test func aLineThatFits_isKept_andALongerOneBreaksBetweenWords() {
        #expect(
            WordWrap.lines("Type 'help COMMAND' for one command.", width: 80) == [
                "Type 'help COMMAND' for one command."
            ]
        )
        let lines = WordWrap.lines(
            "Demo data: 1000 synthetic patients (seed 1). None of them is a real person.",
            width: 40
        )
        #expect(lines == ["Demo data: 1000 synthetic patients (seed", "1). None of them is a real person."])
    }

    @Test func aTermsDescription_goesOnUnderTheDescription() {
        let text = "  --since <day>          Keep rows from this day on (YYYY-MM-DD, as the table shows days)."
        let lines = WordWrap.lines(text, width: 60)
        #expect(lines.count >= 2 && lines.allSatisfy { $0.count <= 60 })
        #expect(lines[0].hasPrefix("  --since <day>          Keep rows"))
        #expect(lines.dropFirst().allSatisfy { $0.hasPrefix(String(repeating: " ", count: 25)) })
        #expect(lines.joined(separator: " ").split(separator: " ") == text.split(separator: " "))
    }

    @Test func everyWidthUpTo80_keepsEveryWord_inLinesThatFit() {
        let text = """
            OVERVIEW: Show a section of the current chart (summary by default).

              <section>               The section to show (listed above), or a prefix only it starts with; Tab completes it.
            """
        for width in 20...80 {
            let lines = WordWrap.lines(text, width: width)
            #expect(lines.allSatisfy { $0.count <= width }, "\(width)")
            #expect(
                lines.joined(separator: " ").split(separator: " ") == text.split(whereSeparator: \.isWhitespace),
                "\(width)"
            )
        }
    }

    @Test func aWordLongerThanTheLine_isCut() {
        #expect(WordWrap.lines(String(repeating: "x", count: 25), width: 10) == ["xxxxxxxxxx", "xxxxxxxxxx", "xxxxx"])
    }
}
