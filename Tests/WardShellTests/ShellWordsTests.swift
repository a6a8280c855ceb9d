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
