// The shell-word splitter: any bytes as one command line.
// Entry point: `ShellWords.split(_:)`.
//
// Besides not trapping: for ASCII lines, the words it gives, each quoted again with `'…'`, must
// split back into the same words (ASCII only, so that a quote cannot fuse with a combining mark
// into another grapheme).
import WardShell

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzShellWords(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: start, count: count)
    let line = String(decoding: bytes, as: UTF8.self)
    guard let words = try? ShellWords.split(line) else { return 0 }
    guard bytes.allSatisfy({ $0 < 0x80 }) else { return 0 }
    let quoted = words.map { "'" + $0.replacing("'", with: #"'\''"#) + "'" }.joined(separator: " ")
    guard let again = try? ShellWords.split(quoted), again == words else {
        fatalError("ShellWords does not split its own quoting back into the same words")
    }
    return 0
}
