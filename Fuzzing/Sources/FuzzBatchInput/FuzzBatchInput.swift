// The batch line reader: any bytes arriving through a pipe in pieces of any size.
// Entry points: `BatchInput(fd:)`, `fill()` and `nextLine()`.
//
// The first byte of each piece gives its length (n % 64 + 1). Besides not trapping, the reader
// must hand out exactly the lines a plain split gives: numbered from 1, blank lines and `#`
// comments counted and skipped, a trailing `\r` dropped, a last line without a newline kept.
import Glibc
import WardCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBatchInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: start, count: min(count, 60_000)))
    var fds: [Int32] = [0, 0]
    guard pipe(&fds) == 0 else { fatalError("pipe failed: errno \(errno)") }
    defer { close(fds[0]) }

    var reader = BatchInput(fd: fds[0])
    var got: [BatchInput.ScriptLine] = []
    var sent: [UInt8] = []
    var i = 0
    while i < input.count {
        let length = Int(input[i] % 64) + 1
        i += 1
        let piece = Array(input[i..<min(i + length, input.count)])
        i += piece.count
        guard !piece.isEmpty else { break }
        sent.append(contentsOf: piece)
        let written = piece.withUnsafeBytes { write(fds[1], $0.baseAddress, $0.count) }
        guard written == piece.count else { fatalError("short write to the pipe") }
        // One read takes all of it (a piece is far below the pipe's and the reader's buffer).
        guard reader.fill() == .data else { fatalError("fill did not see the bytes written") }
        while let line = nextLine(&reader) { got.append(line) }
    }
    close(fds[1])
    while reader.fill() != .endOfInput {}
    while let line = nextLine(&reader) { got.append(line) }
    guard reader.isFinished else { fatalError("the reader is not finished at the end of input") }

    if got != expectedLines(sent) {
        fatalError("BatchInput handed out other lines than a plain split of the same bytes")
    }
    return 0
}

/// The next line; the input is far below `Line.maximumLength`, so a refusal is a bug.
private func nextLine(_ reader: inout BatchInput) -> BatchInput.ScriptLine? {
    do {
        return try reader.nextLine()
    } catch {
        fatalError("BatchInput refused a line shorter than the limit: \(error)")
    }
}

/// The lines of `bytes` as the reader's documentation says, split in one go.
private func expectedLines(_ bytes: [UInt8]) -> [BatchInput.ScriptLine] {
    var pieces = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
    if bytes.last == UInt8(ascii: "\n") || bytes.isEmpty { pieces.removeLast() }
    var lines: [BatchInput.ScriptLine] = []
    for (index, piece) in pieces.enumerated() {
        var piece = piece
        if piece.last == UInt8(ascii: "\r") { piece.removeLast() }
        let text = String(decoding: piece, as: UTF8.self)
        let trimmed = text.drop(while: { $0 == " " || $0 == "\t" })
        if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
        lines.append(BatchInput.ScriptLine(number: index + 1, text: text))
    }
    return lines
}
