/// Prose Ward writes (help, the banners) in lines that break between words at a width, where a
/// terminal would cut a word anywhere at its edge.
///
/// A line that fits is kept as it is. A longer one breaks at spaces; its next lines are indented
/// to where its text starts: after its own indentation, or, for a term and its description
/// (`  --all                  Show every row`), under the description. A word longer than a
/// whole line is cut.
public enum WordWrap {
    /// The narrowest description column kept under its term; narrower, the line wraps under the
    /// term instead.
    static let minimumText = 20

    /// `text`'s lines, none wider than `width` columns (`DisplayWidth`) unless a word is.
    public static func lines(_ text: String, width: Int) -> [String] {
        // No line of a text shorter than the width can be wider (a CJK character takes two
        // columns but three bytes): a batch's unlimited width costs nothing.
        guard width > 0, text.utf8.count > width else {
            return text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        }
        var result: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            guard DisplayWidth.of(String(line)) > width else {
                result.append(String(line))
                continue
            }
            result += wrap(line, width: width)
        }
        return result
    }

    /// `text` with its lines wrapped to `width`, joined again.
    public static func text(_ text: String, width: Int) -> String {
        lines(text, width: width).joined(separator: "\n")
    }

    private static func wrap(_ line: Substring, width: Int) -> [String] {
        let characters = Array(line)
        let indent = characters.prefix { $0 == " " }.count
        var hanging = indent
        // A term, two spaces or more, then its description: later lines go under the description.
        var index = indent
        while index + 1 < characters.count, !(characters[index] == " " && characters[index + 1] == " ") {
            index += 1
        }
        if index + 1 < characters.count {
            var start = index
            while start < characters.count, characters[start] == " " { start += 1 }
            if start < characters.count, width - start >= minimumText { hanging = start }
        }
        if width - hanging < minimumText { hanging = min(indent, max(0, width - minimumText)) }
        let head = String(characters[..<hanging])
        let words = String(characters[hanging...]).split(separator: " ")
        let pad = String(repeating: " ", count: hanging)
        let room = max(1, width - hanging)
        var lines: [String] = []
        var current = head
        var used = 0
        for word in words {
            var word = Substring(word)
            var length = DisplayWidth.of(String(word))
            if used > 0, used + 1 + length <= room {
                current += " " + word
                used += 1 + length
                continue
            }
            if used > 0 {
                lines.append(current)
                current = pad
                used = 0
            }
            while length > room {
                let piece = DisplayWidth.prefix(String(word), columns: room)
                lines.append(current + piece)
                current = pad
                word = word.dropFirst(piece.count)
                length = DisplayWidth.of(String(word))
            }
            current += word
            used = length
        }
        lines.append(current)
        return lines
    }
}
