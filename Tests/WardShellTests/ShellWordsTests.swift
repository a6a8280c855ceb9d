import Testing
import WardShell

@Suite struct ShellWordsTests {
    @Test func splitsOnWhitespace_andHonoursQuotes() throws {
        #expect(try ShellWords.split("  find  smith john ") == ["find", "smith", "john"])
        #expect(try ShellWords.split("note 'a b' \"c d\" e\\ f") == ["note", "a b", "c d", "e f"])
        #expect(try ShellWords.split("") == [])
        #expect(try ShellWords.split("x ''") == ["x", ""])
    }

    @Test func refusesAnOpenQuote() {
        #expect(throws: ShellWords.UnterminatedQuote.self) { try ShellWords.split("note 'oops") }
    }
}

@Suite struct ShellWordsLongLineTests {
    @Test func aMebibyteOfWords_splitsIntoEveryWord() throws {
        let line = String(repeating: "ab 'c d' ", count: 100_000)
        let words = try ShellWords.split(line)
        #expect(words.count == 200_000)
        #expect(words.prefix(2) == ["ab", "c d"])
    }
}
