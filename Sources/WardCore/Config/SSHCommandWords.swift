/// Splits a command given over SSH into words, with none of a shell's syntax.
///
/// Words are separated by spaces. A word may be written in single quotes (`-c 'find lovelace'`),
/// which keep everything inside as it is; that is all. Everything a shell would do something
/// with (`"`, `\`, `$`, backquotes, `;`, `|`, `&`, `<`, `>`, parentheses, braces, globs, `~`,
/// `#`), every control character (a newline, a tab, an escape) and anything over
/// `longest` bytes is refused rather than interpreted, so the text means the same to Ward as
/// it looks to a reader of the sshd log. One pass over the text.
public enum SSHCommandWords {
    /// What made the text unreadable, as a clause: "it holds a control character".
    public struct Unreadable: Error, Equatable, Sendable {
        public let problem: String
        init(_ problem: String) { self.problem = problem }
    }

    /// Longer than any batch invocation needs; a `-c` command longer than this belongs in a script.
    public static let longest = 4096

    /// Characters a word may hold outside quotes, besides letters and digits.
    private static let plain: Set<Character> = ["-", "_", ".", "/", "=", ":", ",", "@", "%", "+"]

    public static func split(_ text: String) throws(Unreadable) -> [String] {
        guard text.utf8.count <= longest else {
            throw Unreadable("it is longer than \(longest) bytes")
        }
        var words: [String] = []
        var word = ""
        var inWord = false
        var quoted = false
        for ch in text {
            if ch.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
                throw Unreadable("it holds a control character")
            }
            if quoted {
                if ch == "'" { quoted = false } else { word.append(ch) }
                continue
            }
            switch ch {
            case " ":
                if inWord { words.append(word) }
                word = ""
                inWord = false
            case "'":
                quoted = true
                inWord = true
            case _ where ch.isASCII && (ch.isLetter || ch.isNumber || plain.contains(ch)):
                word.append(ch)
                inWord = true
            default:
                throw Unreadable(
                    "it holds '\(ch.isASCII ? String(ch) : "a non-ASCII character")', which Ward does not interpret"
                )
            }
        }
        if quoted { throw Unreadable("a quote is not closed") }
        if inWord { words.append(word) }
        guard !words.isEmpty else { throw Unreadable("it is empty") }
        return words
    }
}
