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

    private func lines(_ input: inout BatchInput) throws -> [BatchInput.ScriptLine] {
        var taken: [BatchInput.ScriptLine] = []
        while let line = try input.nextLine() { taken.append(line) }
        return taken
    }

    @Test func blankLinesAndComments_areSkipped_butCounted() throws {
        let fds = pipe("# header\n\nfind ada\n   # indented comment\n\t\nopen W1\r\nshow")
        defer { close(fds.read) }
        var input = BatchInput(fd: fds.read)
        while input.fill() == .data {}
        #expect(
            try lines(&input) == [
                .init(number: 3, text: "find ada"), .init(number: 6, text: "open W1"), .init(number: 7, text: "show"),
            ]
        )
        #expect(input.isFinished)
    }

    @Test func aPartialLine_waitsForItsNewline_untilTheInputEnds() throws {
        let fds = pipe("find ad", keepOpen: true)
        defer { close(fds.read) }
        var input = BatchInput(fd: fds.read)
        #expect(input.fill() == .data)
        #expect(try input.nextLine() == nil)
        #expect(!input.isFinished)
        var rest = Array("a\nwhoami".utf8)
        _ = write(fds.write, &rest, rest.count)
        close(fds.write)
        #expect(input.fill() == .data)
        #expect(try input.nextLine() == .init(number: 1, text: "find ada"))
        #expect(try input.nextLine() == nil)
        #expect(input.fill() == .endOfInput)
        #expect(try input.nextLine() == .init(number: 2, text: "whoami"))
        #expect(input.isFinished)
    }

    @Test func tenThousandLines_comeOutInOrder_acrossManyReads() throws {
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
            taken += try lines(&input)
        }
        #expect(taken.count == 10_000)
        #expect(taken.last == .init(number: 10_000, text: "note line 10000 of a script that is long enough"))
        #expect(taken.enumerated().allSatisfy { $0.element.number == $0.offset + 1 })
    }
}

/// A line may be `Line.maximumLength` bytes; a longer one is refused, and the buffer
/// never holds much more than that.
@Suite struct BatchInputLineLimitTests {
    private func fill(_ input: inout BatchInput) throws -> [BatchInput.ScriptLine] {
        var taken: [BatchInput.ScriptLine] = []
        while true {
            let fill = input.fill()
            while let line = try input.nextLine() { taken.append(line) }
            if fill != .data { return taken }
        }
    }

    /// A file holding `text`, open for reading.
    private func file(_ text: [UInt8]) -> Int32 {
        var template = Array("/tmp/ward-batch-input-XXXXXX".utf8CString)
        let fd = mkstemp(&template)
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        _ = text.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        lseek(fd, 0, SEEK_SET)
        return fd
    }

    @Test func aLineOfExactlyTheMaximum_withCRLF_isTaken() throws {
        let long = [UInt8](repeating: UInt8(ascii: "x"), count: Line.maximumLength)
        let fd = file(Array("find a\n".utf8) + long + Array("\r\nwhoami\n".utf8))
        defer { close(fd) }
        var input = BatchInput(fd: fd)
        let lines = try fill(&input)
        #expect(lines.map(\.number) == [1, 2, 3])
        #expect(lines[1].text.utf8.count == Line.maximumLength)
    }

    @Test func aLongerLine_isRefused_namingItsNumber_andNothingAfterIsRead() throws {
        let long = [UInt8](repeating: UInt8(ascii: "x"), count: Line.maximumLength + 1)
        let fd = file(Array("find a\n\n".utf8) + long + Array("\nwhoami\n".utf8))
        defer { close(fd) }
        var input = BatchInput(fd: fd)
        var taken: [Int] = []
        #expect(throws: BatchInput.LineTooLong(number: 3, start: String(repeating: "x", count: 64))) {
            for _ in 0..<100 {
                _ = input.fill()
                while let line = try input.nextLine() { taken.append(line.number) }
            }
        }
        #expect(taken == [1])
        #expect(input.fill() == .endOfInput)
        #expect(try input.nextLine() == nil)
    }

    @Test func anEndlessLine_isRefused_oneReadPastTheMaximum() throws {
        var fds: [Int32] = [-1, -1]
        #expect(pipe(&fds) == 0)
        defer {
            close(fds[0])
            close(fds[1])
        }
        _ = fcntl(fds[1], F_SETFL, O_NONBLOCK)
        var input = BatchInput(fd: fds[0])
        let chunk = [UInt8](repeating: UInt8(ascii: "y"), count: 65_536)
        var written = 0
        var refused = false
        while !refused, written < 4 * Line.maximumLength {
            written += chunk.withUnsafeBytes { max(0, write(fds[1], $0.baseAddress, $0.count)) }
            _ = input.fill()
            do { _ = try input.nextLine() } catch { refused = true }
        }
        #expect(refused)
        #expect(written <= Line.maximumLength + 2 * 65_536)
    }
}
