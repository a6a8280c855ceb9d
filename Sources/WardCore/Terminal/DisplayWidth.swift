import CWardSystem
import Glibc

/// How many terminal columns text takes: glibc's `wcwidth` for each scalar, so a CJK name takes
/// two columns a character and a combining accent none, and a table's columns line up on what
/// the terminal draws rather than on how many characters there are.
///
/// `wcwidth` reads the thread's `LC_CTYPE`; in the C locale it knows ASCII only. The measure
/// uses C.UTF-8 (glibc's own, always installed) for the call alone, through `uselocale`, so it
/// neither depends on the user's locale nor changes the process's.
public enum DisplayWidth {
    private nonisolated(unsafe) static let utf8: locale_t? = newlocale(LC_CTYPE_MASK, "C.UTF-8", nil)

    /// The columns `text` takes. Text is sanitized before it is measured: a control has no
    /// width of its own and is shown escaped; one that remains counts as one column.
    public static func of(_ text: String) -> Int {
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return text.utf8.count }
        guard let utf8 else { return text.count }
        let previous = uselocale(utf8)
        defer { uselocale(previous) }
        var columns = 0
        for scalar in text.unicodeScalars {
            let width = ward_wcwidth(scalar.value)
            columns += width < 0 ? 1 : Int(width)
        }
        return columns
    }

    /// Calls `body` with each character of `text` and the columns it takes, as `of` measures
    /// them, with the locale switched once for the whole text: the pager wraps a line of a
    /// mebibyte this way without two `uselocale` calls and a string per character.
    public static func forEachCharacter(in text: String, _ body: (Character, Int) -> Void) {
        let previous = utf8.map { uselocale($0) }
        defer { if let previous { uselocale(previous) } }
        for character in text {
            var columns = 0
            for scalar in character.unicodeScalars {
                let width = utf8 == nil ? 1 : ward_wcwidth(scalar.value)
                columns += width < 0 ? 1 : Int(width)
            }
            body(character, columns)
        }
    }

    /// The longest start of `text` that takes at most `columns` columns.
    public static func prefix(_ text: String, columns: Int) -> String {
        var out = ""
        var used = 0
        for character in text {
            let width = of(String(character))
            if used + width > columns { break }
            out.append(character)
            used += width
        }
        return out
    }
}
