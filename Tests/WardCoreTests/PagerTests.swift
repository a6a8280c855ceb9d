import Testing

@testable import WardCore

/// The pager's page math, keys and search, on a `PageBuffer` filled as the shell fills it.
@Suite struct PagerTests {
    /// A header and `count` rows, `row 1` … `row N`, kept as a command's output is.
    static func table(rows count: Int, header: String = "TIME  NAME") -> PageBuffer {
        let buffer = PageBuffer(print: { _ in Issue.record("printed while capturing") })
        buffer.startCapturing()
        buffer.writeHeader(header)
        for index in 1...count { buffer.write("row \(index)") }
        buffer.stopCapturing()
        return buffer
    }

    static let space: [UInt8] = [0x20]
    static func keys(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test func firstPage_showsTheHeaderAndAsManyRowsAsFit_andSaysThereIsMore() {
        let pager = Pager(buffer: Self.table(rows: 30), rows: 10, columns: 80)
        let screen = pager.screen()
        #expect(screen.count == 10)
        #expect(screen[0] == "TIME  NAME")
        #expect(Array(screen[1...8]) == (1...8).map { "row \($0)" })
        #expect(screen[9].hasPrefix("-- more -- lines 1-9 of 31"))
        #expect(screen[9].contains("q: quit"))
    }

    @Test func hOrQuestionMark_showsTheKeys_andAnyKeyGoesBackToThePage_qQuits() {
        for key in ["h", "?"] {
            var pager = Pager(buffer: Self.table(rows: 30), rows: 15, columns: 80)
            let page = pager.screen()
            #expect(pager.handle(Self.keys(key)) == .redraw)
            let keys = pager.screen()
            #expect(keys.count == 15 && keys[0] == "Keys of the pager:")
            #expect(keys.contains { $0.contains("next page") } && keys.contains { $0.hasPrefix("  q, Ctrl-C") })
            #expect(keys.allSatisfy { $0.count <= 80 })
            #expect(keys.last == "Any key: back to the page  q: quit")
            #expect(pager.handle(Self.space) == .redraw)
            #expect(pager.screen() == page, "the key that leaves the keys does not also move the page")
            _ = pager.handle(Self.keys(key))
            #expect(pager.handle(Self.keys("q")) == .quit)
        }
        #expect(Pager(buffer: Self.table(rows: 30), rows: 10, columns: 80).screen()[9].contains("h: keys"))
    }

    @Test func lastPage_isThePageOnScreen_withoutTheStatusLine_orTheBlankRowsUnderIt() {
        var pager = Pager(buffer: Self.table(rows: 30), rows: 10, columns: 80)
        _ = pager.handle(Self.space)
        #expect(pager.lastPage() == Array(pager.screen().dropLast()))
        _ = pager.handle(Self.keys("G"))
        #expect(pager.lastPage() == ["TIME  NAME"] + (23...30).map { "row \($0)" })
        let short = Pager(buffer: Self.table(rows: 3), rows: 10, columns: 80)
        #expect(short.lastPage() == ["TIME  NAME", "row 1", "row 2", "row 3"])
    }

    @Test func space_showsTheNextRows_underTheHeaderKeptOnTop() {
        var pager = Pager(buffer: Self.table(rows: 30), rows: 10, columns: 80)
        #expect(pager.handle(Self.space) == .redraw)
        let screen = pager.screen()
        #expect(screen[0] == "TIME  NAME")
        #expect(Array(screen[1...8]) == (9...16).map { "row \($0)" })
        #expect(screen[9].hasPrefix("-- more -- lines 10-17 of 31"))
        _ = pager.handle(Self.keys("f"))
        #expect(pager.screen()[0] == "TIME  NAME")
        #expect(pager.screen()[1] == "row 17")
    }

    @Test func back_returnsToThePageBefore_andStopsAtTheFirst() {
        var pager = Pager(buffer: Self.table(rows: 30), rows: 10, columns: 80)
        let first = pager.screen()
        _ = pager.handle(Self.space)
        let second = pager.screen()
        _ = pager.handle(Self.space)
        _ = pager.handle(Self.keys("b"))
        #expect(pager.screen() == second)
        _ = pager.handle(Self.keys("b"))
        #expect(pager.screen() == first)
        _ = pager.handle(Self.keys("b"))
        #expect(pager.screen() == first)
    }

    @Test func lastPage_isFull_andSaysEnd_andSpaceThereStays() {
        var pager = Pager(buffer: Self.table(rows: 30), rows: 10, columns: 80)
        for _ in 0..<3 { _ = pager.handle(Self.space) }
        let screen = pager.screen()
        #expect(screen[0] == "TIME  NAME")
        #expect(Array(screen[1...8]) == (23...30).map { "row \($0)" })
        #expect(screen[9].hasPrefix("-- end -- lines 24-31 of 31"))
        #expect(pager.isAtEnd)
        _ = pager.handle(Self.space)
        #expect(pager.screen()[1] == "row 23")
        #expect(pager.screen()[9].hasPrefix("(end)"))
    }

    @Test func q_quits() {
        var pager = Pager(buffer: Self.table(rows: 30), rows: 10, columns: 80)
        #expect(pager.handle(Self.keys("q")) == .quit)
    }

    @Test func rowKeys_andEnds_moveAsLessDoes() {
        var pager = Pager(buffer: Self.table(rows: 30), rows: 10, columns: 80)
        _ = pager.handle([0x0D])
        #expect(pager.screen()[0] == "TIME  NAME")
        #expect(pager.screen()[1] == "row 1")  // the header, now kept, took the first row's place
        _ = pager.handle(Self.keys("\u{1B}[B"))
        #expect(pager.screen()[1] == "row 2")
        _ = pager.handle(Self.keys("k"))
        #expect(pager.screen()[1] == "row 1")
        _ = pager.handle(Self.keys("G"))
        #expect(pager.screen()[8] == "row 30")
        _ = pager.handle(Self.keys("g"))
        #expect(pager.screen()[1] == "row 1" && pager.top == 0)
    }

    @Test func search_bringsTheNextMatchingLineUnderTheHeader_ignoringCase_andNFindsTheNext() {
        let buffer = PageBuffer()
        buffer.startCapturing()
        buffer.writeHeader("MEASUREMENT  VALUE")
        for index in 1...40 { buffer.write(index % 10 == 0 ? "HbA1c \(index)" : "Glucose \(index)") }
        buffer.stopCapturing()
        var pager = Pager(buffer: buffer, rows: 10, columns: 80)
        _ = pager.handle(Self.keys("/"))
        for character in "hba1c" { _ = pager.handle(Self.keys(String(character))) }
        #expect(pager.screen().last == "/hba1c")  // the search is echoed while typed
        _ = pager.handle([0x0D])
        #expect(pager.screen()[0] == "MEASUREMENT  VALUE")
        #expect(pager.screen()[1] == "HbA1c 10")
        _ = pager.handle(Self.keys("n"))
        #expect(pager.screen()[1] == "HbA1c 20")
        _ = pager.handle(Self.keys("n"))
        #expect(pager.screen()[1] == "HbA1c 30")
        _ = pager.handle(Self.keys("n"))
        // The last page is a full one: the match is on it, below the top.
        #expect(pager.screen().contains("HbA1c 40") && pager.isAtEnd)
        _ = pager.handle(Self.keys("/"))
        for character in "nothing" { _ = pager.handle(Self.keys(String(character))) }
        _ = pager.handle([0x0D])
        #expect(pager.screen().last == "Not found after this line: nothing")
    }

    @Test func search_typedText_isSanitizedWhereItIsEchoed_andEscapeGivesUp() {
        var pager = Pager(buffer: Self.table(rows: 30), rows: 10, columns: 80)
        _ = pager.handle(Self.keys("/"))
        _ = pager.handle(Self.keys("a\u{202E}b"))  // a right-to-left override, pasted
        #expect(pager.screen().last == "/a\\u202Eb")
        _ = pager.handle([0x7F])
        #expect(pager.screen().last == "/a\\u202E")
        _ = pager.handle([0x1B])
        #expect(pager.screen().last?.hasPrefix("-- more --") == true)
        _ = pager.handle(Self.keys("n"))
        #expect(pager.screen().last == "No search yet: type / and a word.")
    }

    /// Ctrl-C arrives as a signal, not a key: the front end asks whether a search is typed.
    @Test func cancelSearch_givesUpWhatIsTyped_andPagingGoesOn() {
        var pager = Pager(buffer: Self.table(rows: 30), rows: 10, columns: 80)
        #expect(!pager.isTypingSearch)
        _ = pager.handle(Self.keys("/"))
        _ = pager.handle(Self.keys("row"))
        #expect(pager.isTypingSearch)
        pager.cancelSearch()
        #expect(!pager.isTypingSearch)
        #expect(pager.screen().last?.hasPrefix("-- more --") == true)
        _ = pager.handle(Self.keys("n"))
        #expect(pager.screen().last == "No search yet: type / and a word.")
    }

    @Test func longLines_wrapAtTheWidth_byDisplayColumns() {
        let buffer = PageBuffer()
        buffer.startCapturing()
        buffer.write(String(repeating: "x", count: 25))
        buffer.write("山田山田山田")  // twelve columns
        buffer.write("")
        buffer.stopCapturing()
        let pager = Pager(buffer: buffer, rows: 10, columns: 10)
        #expect(Pager.rowCount(of: buffer, columns: 10) == 6)
        #expect(Array(pager.screen()[0..<6]) == ["xxxxxxxxxx", "xxxxxxxxxx", "xxxxx", "山田山田山", "田", ""])
        #expect(Pager.rowCount(of: buffer, columns: 5) == 9)
    }

    @Test func aLineOfAMebibyte_wrapsToRowsOfTheWidth() {
        let buffer = PageBuffer()
        buffer.startCapturing()
        buffer.write(String(repeating: "é", count: 500_000))  // a mebibyte of UTF-8, one column each
        buffer.stopCapturing()
        var pager = Pager(buffer: buffer, rows: 10, columns: 100)
        #expect(Pager.rowCount(of: buffer, columns: 100) == 5_000)
        _ = pager.handle(Array("G".utf8))
        #expect(pager.screen()[8] == String(repeating: "é", count: 100))
    }

    @Test func resize_rewrapsAndKeepsTheFirstLineOnScreen() {
        let buffer = Self.table(rows: 30, header: "HEADER")
        var pager = Pager(buffer: buffer, rows: 10, columns: 80)
        _ = pager.handle(Self.space)
        #expect(pager.screen()[1] == "row 9")
        pager.resize(rows: 6, columns: 3)
        #expect(pager.screen().count == 6)
        #expect(pager.screen()[0] == "HEA")  // the kept header is cut, not wrapped
        #expect(pager.screen()[1] == "row")
        #expect(pager.screen()[2] == " 9")
    }

    @Test func severalTables_eachRowUnderItsOwnHeader() {
        let buffer = PageBuffer()
        buffer.startCapturing()
        buffer.writeHeader("FIRST")
        for index in 1...10 { buffer.write("a\(index)") }
        buffer.write("")
        buffer.writeHeader("SECOND")
        for index in 1...10 { buffer.write("b\(index)") }
        buffer.stopCapturing()
        var pager = Pager(buffer: buffer, rows: 6, columns: 80)
        #expect(pager.screen()[0] == "FIRST")
        _ = pager.handle(Self.space)
        #expect(pager.screen()[0] == "FIRST")
        _ = pager.handle(Self.space)
        _ = pager.handle(Self.space)
        #expect(pager.screen()[0] == "SECOND")
        #expect(pager.screen()[1].hasPrefix("b"))
    }

    @Test func notice_showsInTheStatusLine_untilTheNextKey() {
        var pager = Pager(buffer: Self.table(rows: 30), rows: 10, columns: 80)
        pager.show(notice: "ward: locking in 30 seconds\u{1B}[2J")
        #expect(pager.screen().last == "ward: locking in 30 seconds\\e[2J")
        _ = pager.handle(Self.space)
        #expect(pager.screen().last?.hasPrefix("-- more --") == true)
    }

    @Test func wipe_forgetsTheSearch() {
        var pager = Pager(buffer: Self.table(rows: 30), rows: 10, columns: 80)
        _ = pager.handle(Self.keys("/"))
        _ = pager.handle(Self.keys("row 2"))
        _ = pager.handle([0x0D])
        pager.wipe()
        _ = pager.handle(Self.keys("n"))
        #expect(pager.screen().last == "No search yet: type / and a word.")
    }
}

/// What the shell writes at a terminal that pages: printed when nothing is captured, kept while
/// a command runs, and zeroed by the lock.
@Suite struct PageBufferTests {
    @Test func printsStraightAway_whenNotCapturing() {
        var printed: [String] = []
        let buffer = PageBuffer(print: { printed.append($0) })
        buffer.write("Demo data")
        #expect(printed == ["Demo data"])
        #expect(buffer.count == 0)
    }

    @Test func keepsLinesWhileCapturing_splittingMessagesAtNewlines_andMarksHeaders() {
        var printed: [String] = []
        let buffer = PageBuffer(print: { printed.append($0) })
        buffer.startCapturing()
        buffer.write("one\ntwo")
        buffer.writeHeader("HEAD")
        buffer.write("")
        buffer.stopCapturing()
        #expect(printed.isEmpty)
        #expect((0..<buffer.count).map(buffer.text(at:)) == ["one", "two", "HEAD", ""])
        #expect((0..<buffer.count).map(buffer.isHeader(at:)) == [false, false, true, false])
        buffer.printKept()
        #expect(printed == ["one", "two", "HEAD", ""])
        #expect(buffer.count == 0)
    }

    @Test func wipe_forgetsEveryLine_andStopsCapturing() {
        let buffer = PageBuffer(print: { _ in })
        buffer.startCapturing()
        buffer.write("Lovelace, Ada")
        buffer.wipe()
        #expect(buffer.count == 0)
        #expect(!buffer.isCapturing)
    }
}

/// `[display] pager` in the user file: on unless the user turns it off; a boolean.
@Suite struct PagerPreferenceTests {
    static let file = "/home/a/.config/ward/config.toml"

    @Test func pagerIsOnByDefault_andTheUserFileMayTurnItOff() throws {
        #expect(try UserPreferences.parse("", file: Self.file, plugins: standInPlugins).display.pager)
        let off = try UserPreferences.parse("[display]\npager = false\n", file: Self.file, plugins: standInPlugins)
        #expect(!off.display.pager)
    }

    @Test func pagerThatIsNotABoolean_isRefused_namingFileAndLine() {
        let error = configError {
            try UserPreferences.parse("[display]\npager = \"off\"\n", file: Self.file, plugins: standInPlugins)
        }
        let message = error?.all.map(\.description).joined() ?? ""
        #expect(message.hasPrefix("\(Self.file):2:") && message.contains("pager"))
    }
}
