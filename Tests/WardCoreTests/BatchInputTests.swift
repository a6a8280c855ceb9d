import Glibc
import Testing

import WardCore

struct BatchInputTests {
    /// A pipe holding `text`, its write end closed unless `keepOpen`.
    private func pipe(_ text: String, keepOpen: Bool = false) -> (read: Int32, write: Int32) {
        var fds: [Int32] = [-1, -1]
        precondition(Glibc.pipe(&fds) == 0)
        var bytes = Array(text.utf8)
        if !bytes.isEmpty { _ = write(fds[1], &bytes, bytes.count) }
        if !keepOpen { close(fds[1]) }
        return (fds[0], fds[1])
    }

    private func lines(_ input: inout BatchInput) -> [BatchInput.ScriptLine] {
        var taken: [BatchInput.ScriptLine] = []
        while let line = input.nextLine() { taken.append(line) }
        return taken
    }

    @Test func blankLinesAndComments_areSkipped_butCounted() {
        let fds = pipe("# header\n\nfind ada\n   # indented comment\n\t\nopen W1\r\nshow")
        defer { close(fds.read) }
        var input = BatchInput(fd: fds.read)
        while input.fill() == .data {}
        #expect(
            lines(&input) == [
                .init(number: 3, text: "find ada"), .init(number: 6, text: "open W1"), .init(number: 7, text: "show"),
            ])
        #expect(input.isFinished)
    }

    @Test func aPartialLine_waitsForItsNewline_untilTheInputEnds() {
        let fds = pipe("find ad", keepOpen: true)
        defer { close(fds.read) }
        var input = BatchInput(fd: fds.read)
        #expect(input.fill() == .data)
        #expect(input.nextLine() == nil)
        #expect(!input.isFinished)
        var rest = Array("a\nwhoami".utf8)
        _ = write(fds.write, &rest, rest.count)
        close(fds.write)
        #expect(input.fill() == .data)
        #expect(input.nextLine() == .init(number: 1, text: "find ada"))
        #expect(input.nextLine() == nil)
        #expect(input.fill() == .endOfInput)
        #expect(input.nextLine() == .init(number: 2, text: "whoami"))
        #expect(input.isFinished)
    }

    @Test func tenThousandLines_comeOutInOrder_acrossManyReads() {
        // More than one 64 KiB read, so lines straddle the reads' boundaries.
        let script = (1...10_000).map { "note line \($0) of a script that is long enough" }.joined(separator: "\n")
        let path = "/tmp/ward-batch-input-\(getpid())"
        let file = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0o600)
        var bytes = Array(script.utf8)
        _ = write(file, &bytes, bytes.count)
        close(file)
        defer { unlink(path) }
        let fd = open(path, O_RDONLY)
        defer { close(fd) }
        var input = BatchInput(fd: fd)
        var taken: [BatchInput.ScriptLine] = []
        while !input.isFinished {
            _ = input.fill()
            taken += lines(&input)
        }
        #expect(taken.count == 10_000)
        #expect(taken.last == .init(number: 10_000, text: "note line 10000 of a script that is long enough"))
        #expect(taken.enumerated().allSatisfy { $0.element.number == $0.offset + 1 })
    }
}
