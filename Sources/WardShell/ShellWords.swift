/// Splits a command line into words, as a POSIX shell would for quoting: `'…'`, `"…"` and `\`.
///
/// No globbing, no variables, no substitution: the records shell runs no other program, and a
/// line means exactly what it says.
public enum ShellWords {
    public struct UnterminatedQuote: Error, Equatable, Sendable, CustomStringConvertible {
        public var description: String { "a quote is not closed: close it, or put a backslash before it" }
    }

    public static func split(_ line: String) throws(UnterminatedQuote) -> [String] {
        var words: [String] = []
        var word = ""
        var inWord = false
        var quote: Character?
        var escaped = false
        for ch in line {
            if escaped {
                word.append(ch)
                escaped = false
                continue
            }
            switch (quote, ch) {
            case (nil, "\\"), ("\"", "\\"):
                escaped = true
                inWord = true
            case (nil, "'"), (nil, "\""):
                quote = ch
                inWord = true
            case (let q?, _) where ch == q:
                quote = nil
            case (nil, _) where ch.isWhitespace:
                if inWord { words.append(word) }
                word = ""
                inWord = false
            default:
                word.append(ch)
                inWord = true
            }
        }
        if quote != nil || escaped { throw UnterminatedQuote() }
        if inWord { words.append(word) }
        return words
    }
}
