/// "Did you mean": the one known name nearest a mistyped word, by Damerau–Levenshtein distance
/// (the optimal-string-alignment form: an adjacent swap such as `shwo` costs one edit).
///
/// Bounded on purpose: a word may be as long as a line (a mebibyte), so a word whose length is
/// further from a name's than the limit is not compared at all, and a row of the table that
/// exceeds the limit ends the comparison. The names are Ward's own; the typed word is hostile
/// and reaches the terminal only through `ShellOutput.failure` (which sanitizes).
enum Suggestion {
    /// Edits allowed: one for a word of up to four characters (`lsb` is not `labs`), else two.
    static func limit(for word: String) -> Int { word.count <= 4 ? 1 : 2 }

    /// The name nearest `word`, when exactly one is nearest and within the limit.
    static func nearest(_ word: String, in names: [String]) -> String? {
        let limit = limit(for: word)
        let scored = names.compactMap { name in distance(word, name, limit: limit).map { (name, $0) } }
        guard let best = scored.map(\.1).min() else { return nil }
        let nearest = scored.filter { $0.1 == best }
        return nearest.count == 1 ? nearest[0].0 : nil
    }

    /// The names that start with `prefix`, in their order.
    static func completing(_ prefix: String, in names: [String]) -> [String] {
        prefix.isEmpty ? [] : names.filter { $0.hasPrefix(prefix) }
    }

    /// The edit distance between `a` and `b` (insertions, deletions, substitutions and swaps of
    /// adjacent characters), or nil when it is more than `limit`.
    static func distance(_ a: String, _ b: String, limit: Int) -> Int? {
        let s = Array(a)
        let t = Array(b)
        guard abs(s.count - t.count) <= limit else { return nil }
        if s.isEmpty || t.isEmpty { return max(s.count, t.count) }
        // Three rows: the one before last (for swaps), the last, and this one.
        var older = [Int](repeating: 0, count: t.count + 1)
        var previous = Array(0...t.count)
        var current = [Int](repeating: 0, count: t.count + 1)
        for i in 1...s.count {
            current[0] = i
            var rowBest = i
            for j in 1...t.count {
                let cost = s[i - 1] == t[j - 1] ? 0 : 1
                var d = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, s[i - 1] == t[j - 2], s[i - 2] == t[j - 1] {
                    d = min(d, older[j - 2] + 1)
                }
                current[j] = d
                rowBest = min(rowBest, d)
            }
            if rowBest > limit { return nil }
            (older, previous, current) = (previous, current, older)
        }
        let d = previous[t.count]
        return d <= limit ? d : nil
    }
}
