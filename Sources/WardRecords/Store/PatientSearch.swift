/// `find TEXT`: turns what the user typed into FTS5 queries and ranks what they return.
///
/// Ranking, best first:
/// 1. the MRN, when the text is one word with a digit in it and a patient has exactly that MRN;
/// 2. then by score: each typed word scores its best match among the patient's names, a whole
///    family name 30, a whole given name 20, the start of a family name 12, of a given name 8;
/// 3. ties by family name, given names, birth date, MRN.
///
/// The search reads rowids from the FTS index before it reads any patient row: first up to
/// `limit` whole-word matches, then up to `countCap + 1` prefix matches, both in storage order.
/// The prefix rowids give the count and, when the whole words found fewer than `limit` rows, the
/// rest of the candidates; only the candidates' rows (at most twice `limit`) are read and scored.
/// Ordering every match of `s` among a million patients would cost tens of milliseconds. A
/// whole-word row nearly always outranks a prefix-only row, so the best rows are among the
/// candidates; among more matches than the limit, the user refines (the result says how many
/// there are, counted up to `countCap`). BM25 is not used: with one or two short tokens per
/// column it ranks by rarity, which says nothing about which patient is meant.
///
/// One prefix pass gives both the rows and the count. Walking the prefix doclists is most of a
/// two-word `find` (`mar*` has 55,000 entries among a million patients; four fifths of the time
/// in a profile), and a separate pass for the rows walked the first stretch of them again.
public struct PatientSearch {
    /// Matches are counted up to this many, then reported as "more than".
    /// Low, because counting is the costly part of a broad search (`mar smi` over a million
    /// patients must walk the doclists until the count is reached) and past a screenful
    /// the user refines anyway.
    static let countCap = 200

    /// How many patients a search with a birth date or a `FAMILY,G` word reads to filter: the
    /// name words find the candidates, the filter keeps those born then or named so.
    static let filteredCandidates = 5000

    /// The folded words (`NameWords.searched`), as the index holds them.
    let words: [String]
    /// The text as typed, when it is one word: an MRN is any identifier an import accepted.
    let mrnCandidate: String?
    /// `1989`, `1989-10` or `1989-10-26`: only patients whose birth date starts so.
    let born: String?
    /// `SMITH,J`, VistA's form: the family name starts with the first, a given name with the second.
    let familyAndGiven: (family: String, given: String)?

    init(_ text: String) {
        let trimmed = String(text.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
        var nameText: [Substring] = []
        var born: String?
        var familyAndGiven: (String, String)?
        for word in trimmed.split(whereSeparator: \.isWhitespace) {
            if Self.isBirthDate(word) {
                born = String(word)
            } else if let comma = word.firstIndex(of: ","), familyAndGiven == nil,
                let family = Self.searchedWords(String(word[..<comma])).first
            {
                let given = Self.searchedWords(String(word[word.index(after: comma)...])).first ?? ""
                familyAndGiven = (family, given)
                nameText.append(Substring(family))
                if !given.isEmpty { nameText.append(Substring(given)) }
            } else {
                nameText.append(word)
            }
        }
        // A word given twice narrows nothing: FTS5's cost grows faster than the number of terms.
        var seen = Set<String>()
        words = Self.searchedWords(nameText.joined(separator: " ")).filter { seen.insert($0).inserted }
        mrnCandidate = !trimmed.isEmpty && !trimmed.contains(where: \.isWhitespace) ? trimmed : nil
        self.born = born
        self.familyAndGiven = familyAndGiven
    }

    var isEmpty: Bool { words.isEmpty && mrnCandidate == nil }

    /// Whether only some of the patients the name words find are wanted.
    var isFiltered: Bool { born != nil || familyAndGiven != nil }

    /// `YYYY`, `YYYY-MM` or `YYYY-MM-DD`, digits where digits belong: a birth date or its start.
    public static func isBirthDate(_ word: Substring) -> Bool {
        let bytes = Array(word.utf8)
        guard [4, 7, 10].contains(bytes.count) else { return false }
        for (index, byte) in bytes.enumerated() {
            let isDigit = (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            guard index == 4 || index == 7 ? byte == UInt8(ascii: "-") : isDigit else { return false }
        }
        return true
    }

    /// Whether `match` is born when and named as the filters ask.
    func passesFilters(_ match: PatientMatch) -> Bool {
        if let born, !match.birthDate.hasPrefix(born) { return false }
        if let (family, given) = familyAndGiven {
            guard Self.tokens(match.family).contains(where: { $0.hasPrefix(family) }) else { return false }
            if !given.isEmpty, !Self.tokens(match.given).contains(where: { $0.hasPrefix(given) }) { return false }
        }
        return true
    }

    /// How many different words a search for `text` looks for, split as the index splits them
    /// (`ab.cd` is two words): what a limit on a search's words must count, since the index's
    /// cost grows faster than their number (one 850 KB word of 120,000 parts took 13 s).
    public static func distinctWordCount(_ text: String) -> Int {
        Set(searchedWords(text)).count
    }

    func run(_ db: SQLiteConnection, limit: Int) throws -> SearchResult {
        try run(SQLitePatientRows(db: db, search: self), limit: limit)
    }

    /// The search itself, over either store's rows: what ranks and counts is here, once, so both
    /// stores give the same results for the same data.
    func run(_ source: some PatientRowSource, limit: Int) throws -> SearchResult {
        if isFiltered { return try runFiltered(source, limit: limit) }
        let exact = try runExact(source, limit: limit)
        guard exact.matches.isEmpty else { return exact }
        return try closeMatches(source, limit: limit) ?? exact
    }

    /// With a birth date or `FAMILY,G`: up to `filteredCandidates` patients the name words find,
    /// those the filters keep, ranked. A date alone names nobody: it needs a name beside it.
    private func runFiltered(_ source: some PatientRowSource, limit: Int) throws -> SearchResult {
        var found: [Int64: PatientMatch] = [:]
        if let mrn = mrnCandidate, let (id, match) = try source.match(mrn: mrn) { found[id] = match }
        var capped = false
        if !words.isEmpty {
            let (_, candidates) = try source.ids(words: words, whole: 1, prefix: Self.filteredCandidates + 1)
            capped = candidates.count > Self.filteredCandidates
            for (id, match) in try source.matches(ids: Array(candidates.prefix(Self.filteredCandidates)))
            where found[id] == nil && passesFilters(match) {
                found[id] = scored(match)
            }
        }
        let ranked = found.values.sorted(by: Self.ranksBefore)
        return SearchResult(matches: Array(ranked.prefix(limit)), total: ranked.count, totalIsCapped: capped)
    }

    /// When nothing matches: the patients whose name has a word one letter away (wrong, missing,
    /// extra or two swapped) from a typed word of five letters or more, the other words as typed.
    /// A clinician who types `sondergard` is shown Søndergaard, marked as a close match.
    ///
    /// Every variant's patients are read (up to `filteredCandidates` in all) and ranked together,
    /// so both stores list the same ones whatever order their indexes return them in.
    private func closeMatches(_ source: some PatientRowSource, limit: Int) throws -> SearchResult? {
        var ids: [Int64] = []
        var seen = Set<Int64>()
        variants: for (index, word) in words.enumerated()
        where word.count >= Self.closeMatchLength && word.allSatisfy(\.isLetter) {
            for variant in Self.oneLetterAway(word) {
                var asked = words
                asked[index] = variant
                let (_, found) = try source.ids(words: asked, whole: 1, prefix: Self.countCap + 1)
                for id in found where seen.insert(id).inserted { ids.append(id) }
                if ids.count > Self.filteredCandidates { break variants }
            }
        }
        guard !ids.isEmpty else { return nil }
        let ranked = try source.matches(ids: Array(ids.prefix(Self.filteredCandidates)))
            .map { scored($0.1) }.sorted(by: Self.ranksBefore)
        var result = SearchResult(
            matches: Array(ranked.prefix(limit)),
            total: min(ranked.count, max(Self.countCap, limit)),
            totalIsCapped: ranked.count > max(Self.countCap, limit) || ids.count > Self.filteredCandidates
        )
        result.isClose = true
        return result
    }

    /// The shortest typed word a close match is looked for: shorter ones are one letter away from
    /// too many names to help.
    static let closeMatchLength = 5

    /// Every word one edit from `word`: each letter left out, each two neighbours swapped, each
    /// letter replaced and each letter added, with a to z. About 55 for each letter of the word.
    static func oneLetterAway(_ word: String) -> [String] {
        let letters = Array(word)
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz")
        var variants: [String] = []
        var seen: Set<String> = [word]
        func add(_ characters: [Character]) {
            let variant = String(characters)
            if seen.insert(variant).inserted { variants.append(variant) }
        }
        for index in letters.indices {
            var without = letters
            without.remove(at: index)
            add(without)
            if index + 1 < letters.count {
                var swapped = letters
                swapped.swapAt(index, index + 1)
                add(swapped)
            }
        }
        for index in letters.indices {
            for letter in alphabet where letter != letters[index] {
                var replaced = letters
                replaced[index] = letter
                add(replaced)
            }
        }
        for index in 0...letters.count {
            for letter in alphabet {
                var added = letters
                added.insert(letter, at: index)
                add(added)
            }
        }
        return variants
    }

    /// The search as typed: MRN, whole words, then prefixes.
    private func runExact(_ source: some PatientRowSource, limit: Int) throws -> SearchResult {
        // A listing of every match (`find --all`) counts as far as it lists.
        let countCap = max(Self.countCap, limit)
        var found: [Int64: PatientMatch] = [:]
        var total = 0
        if let mrn = mrnCandidate, let (id, match) = try source.match(mrn: mrn) {
            var match = match
            match.score = Self.mrnScore
            found[id] = match
            total += 1
        }
        if !words.isEmpty {
            let (whole, prefix) = try source.ids(words: words, whole: limit, prefix: countCap + 1)
            for (id, match) in try source.matches(ids: whole.filter { found[$0] == nil }) {
                found[id] = scored(match)
            }
            if found.count < limit {
                for (id, match) in try source.matches(ids: prefix.prefix(limit).filter { found[$0] == nil }) {
                    found[id] = scored(match)
                }
            }
            total += prefix.count
            if let mrn = mrnCandidate, let match = found.values.first(where: { $0.mrn == mrn }),
                scoreNames(given: match.given, family: match.family) > 0
            {
                total -= 1  // matched by MRN and by name: count it once
            }
        }
        let ranked = found.values.sorted(by: Self.ranksBefore)
        let capped = total > countCap
        return SearchResult(
            matches: Array(ranked.prefix(limit)),
            total: min(total, countCap),
            totalIsCapped: capped
        )
    }

    /// The find row for one MRN (case-insensitive), or nil.
    static func match(mrn: String, _ db: SQLiteConnection) throws -> PatientMatch? {
        try row(mrn: mrn, db)?.1
    }

    static let mrnScore = 1000

    /// The rows whose MRN starts with `prefix`, in MRN order, at most `limit`, and how many there
    /// are (up to `countCap`, then capped).
    ///
    /// A range on the unique MRN index (`mrn >= prefix AND mrn < prefix + U+10FFFF`): both bounds
    /// are compared under the column's NOCASE collation, so SQLite walks only the index entries
    /// in the range. Not `LIKE`, whose `%` and `_` in a typed prefix would need escaping and whose
    /// index use depends on connection settings. The upper bound sorts after every string that
    /// starts with the prefix and a character below U+10FFFF, which MRNs are made of.
    static func matches(mrnPrefix prefix: String, limit: Int, _ db: SQLiteConnection) throws -> SearchResult {
        let upper = prefix + "\u{10FFFF}"
        var matches: [PatientMatch] = []
        try db.eachRow(
            """
            SELECT id, mrn, given, family, birth_date, sex, restricted
            FROM patient WHERE mrn >= ? AND mrn < ? ORDER BY mrn LIMIT ?
            """,
            [.text(prefix), .text(upper), .integer(Int64(limit))]
        ) { matches.append(Self.match($0)) }
        let counted: Int =
            try db.fetchOne(
                "SELECT count(*) FROM (SELECT 1 FROM patient WHERE mrn >= ? AND mrn < ? LIMIT ?)",
                [.text(prefix), .text(upper), .integer(countCap + 1)]
            ) ?? 0
        return SearchResult(
            matches: matches,
            total: min(counted, countCap),
            totalIsCapped: counted > countCap
        )
    }

    /// MRNs are unique (ignoring ASCII case): the first row is the only one.
    fileprivate static func row(mrn: String, _ db: SQLiteConnection) throws -> (Int64, PatientMatch)? {
        var found: (Int64, PatientMatch)?
        try db.eachRow(
            "SELECT id, mrn, given, family, birth_date, sex, restricted FROM patient WHERE mrn = ?",
            [.text(mrn)]
        ) { row in
            guard found == nil else { return }
            var match = Self.match(row)
            match.score = mrnScore
            found = (row.int64(0), match)
        }
        return found
    }

    /// The patients matching an FTS5 query, in storage (rowid) order, at most `limit`.
    ///
    /// Stepped straight from the statement: a cursor and a generic conversion of each rowid
    /// (GRDB's `Int64.fetchAll`) cost as much as SQLite's walk of the index (it reads up to 221;
    /// Benchmarks/README.md, "Why the hot paths look as they do").
    fileprivate func rowids(_ db: SQLiteConnection, query: String, limit: Int) throws -> [Int64] {
        var ids: [Int64] = []
        ids.reserveCapacity(limit)
        try db.eachRow(
            "SELECT rowid FROM patient_fts WHERE patient_fts MATCH ? LIMIT ?",
            [.text(query), .integer(Int64(limit))]
        ) { ids.append($0.int64(0)) }
        return ids
    }

    private func scored(_ match: PatientMatch) -> PatientMatch {
        var match = match
        match.score = scoreNames(given: match.given, family: match.family)
        return match
    }

    /// A row of `id, mrn, given, family, birth_date, sex, restricted`, unscored. Text is read
    /// whole (`StatementRow.text`), so no query casts it to a blob.
    fileprivate static func match(_ row: StatementRow) -> PatientMatch {
        PatientMatch(
            mrn: row.text(1),
            given: row.text(2),
            family: row.text(3),
            birthDate: row.text(4),
            sex: Sex(rawValue: row.text(5)) ?? .unknown,
            restricted: row.int64(6) != 0,
            score: 0
        )
    }

    /// The FTS5 query: every word must match (implicit AND), each quoted so no word is read as
    /// FTS5 syntax (`NOT`, `OR`, `col:`), with `*` for a prefix.
    static func ftsQuery(_ words: [String], prefix: Bool) -> String {
        words.map { "\"\($0)\"" + (prefix ? "*" : "") }.joined(separator: " ")
    }

    /// The score of a patient's names for these words (see the type's comment).
    func scoreNames(given: String, family: String) -> Int {
        var score = 0
        for word in words {
            score += max(
                Self.score(word, in: family, whole: 30, prefix: 12),
                Self.score(word, in: given, whole: 20, prefix: 8)
            )
        }
        return score
    }

    /// `whole` when one of `name`'s tokens is `word`, else `prefix` when one starts with it, else 0.
    static func score(_ word: String, in name: String, whole: Int, prefix: Int) -> Int {
        if let score = asciiScore(word, in: name, whole: whole, prefix: prefix) { return score }
        return tokens(name).reduce(0) { best, token in
            max(best, token == word ? whole : token.hasPrefix(word) ? prefix : 0)
        }
    }

    /// `score` for an ASCII name (nearly every one), its tokens compared where they lie, as
    /// `asciiTokens` splits them; nil for any other. Splitting both names into arrays of strings,
    /// for each of a `find`'s up to 40 candidates, cost a quarter of a `find` (Benchmarks/README.md).
    private static func asciiScore(_ word: String, in name: String, whole: Int, prefix: Int) -> Int? {
        func isTokenByte(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"):
                true
            default: false
            }
        }
        func folded(_ byte: UInt8) -> UInt8 {
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
        }
        let scored = name.utf8.withContiguousStorageIfAvailable { name -> Int? in
            guard name.allSatisfy(isPlainASCII) else { return nil }
            return word.utf8.withContiguousStorageIfAvailable { word in
                var best = 0
                var start = 0
                while start < name.count {
                    guard isTokenByte(name[start]) else {
                        start += 1
                        continue
                    }
                    var end = start
                    while end < name.count, isTokenByte(name[end]) { end += 1 }
                    if end - start >= word.count, word.indices.allSatisfy({ folded(name[start + $0]) == word[$0] }) {
                        best = max(best, end - start == word.count ? whole : prefix)
                    }
                    start = end
                }
                return best
            }
        }
        return scored ?? nil
    }

    static func ranksBefore(_ a: PatientMatch, _ b: PatientMatch) -> Bool {
        if a.score != b.score { return a.score > b.score }
        if a.family != b.family { return a.family < b.family }
        if a.given != b.given { return a.given < b.given }
        if a.birthDate != b.birthDate { return a.birthDate < b.birthDate }
        return a.mrn < b.mrn
    }

    /// The words a stored name is found by (`NameWords.indexed`): what PostgreSQL's name-token
    /// table and SQLite's `name_words` hold, and what a search's words are scored against.
    ///
    /// ASCII text without an apostrophe, nearly every name, takes a byte loop: Foundation's
    /// folding cost a fifth of a `find` (two names folded for every candidate row).
    static func tokens(_ text: String) -> [String] {
        text.utf8.allSatisfy(isPlainASCII) ? asciiTokens(text) : NameWords.indexed(text)
    }

    /// The words a search for `text` looks for (`NameWords.searched`).
    static func searchedWords(_ text: String) -> [String] {
        text.utf8.allSatisfy(isPlainASCII) ? asciiTokens(text) : NameWords.searched(text)
    }

    /// ASCII that needs no folding: no byte above 0x7F, no apostrophe that joins a word's parts.
    private static func isPlainASCII(_ byte: UInt8) -> Bool {
        byte < 0x80 && byte != UInt8(ascii: "'") && byte != UInt8(ascii: "`")
    }

    /// `tokens` for ASCII text: letters and digits, lower-cased; any other byte separates.
    private static func asciiTokens(_ text: String) -> [String] {
        var tokens: [String] = []
        var token: [UInt8] = []
        func endToken() {
            guard !token.isEmpty else { return }
            tokens.append(String(decoding: token, as: UTF8.self))
            token.removeAll(keepingCapacity: true)
        }
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"): token.append(byte)
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): token.append(byte | 0x20)
            default: endToken()
            }
        }
        endToken()
        return tokens
    }
}

/// Where a search reads its candidates: the three reads `PatientSearch.run` makes, answered by
/// SQLite's FTS5 index or PostgreSQL's name-token table.
protocol PatientRowSource {
    /// The patient with exactly this MRN (ignoring ASCII case), and its id.
    func match(mrn: String) throws -> (Int64, PatientMatch)?
    /// The ids of the patients whose names hold every word whole, at most `whole`, and of those
    /// whose names hold every word whole or as the start of a name word, at most `prefix`, each
    /// in id order. Asked together so that a store across the network answers both at once.
    func ids(words: [String], whole: Int, prefix: Int) throws -> (whole: [Int64], prefix: [Int64])
    /// The rows of these patients, unscored; an id with no row is left out. A source may answer
    /// from rows it read along with the ids.
    func matches(ids: [Int64]) throws -> [(Int64, PatientMatch)]
}

/// The embedded store's rows: the FTS5 index for names, one cached statement per row.
private struct SQLitePatientRows: PatientRowSource {
    let db: SQLiteConnection
    let search: PatientSearch

    func match(mrn: String) throws -> (Int64, PatientMatch)? { try PatientSearch.row(mrn: mrn, db) }

    func ids(words: [String], whole: Int, prefix: Int) throws -> (whole: [Int64], prefix: [Int64]) {
        (
            try search.rowids(db, query: PatientSearch.ftsQuery(words, prefix: false), limit: whole),
            try search.rowids(db, query: PatientSearch.ftsQuery(words, prefix: true), limit: prefix)
        )
    }

    /// All the candidates' rows with one statement: a `find` reads up to 40, and a statement per
    /// row cost more in its set-up than in SQLite; they are stepped straight from it
    /// (`eachRow`). The ids go in as one JSON array (`json_each`), so one cached statement
    /// serves every count; the answer keeps `ids`' order, as the row-by-row reads did. A join
    /// walked from the list, each id a rowid lookup, rather than `id IN (SELECT …)`: the `IN`
    /// built a temporary b-tree of the ids for every search, with its own 87 KB page cache.
    func matches(ids: [Int64]) throws -> [(Int64, PatientMatch)] {
        guard !ids.isEmpty else { return [] }
        var list = "["
        for (index, id) in ids.enumerated() {
            if index > 0 { list += "," }
            list += String(id)
        }
        list += "]"
        var found: [Int64: PatientMatch] = [:]
        try db.eachRow(
            """
            SELECT p.id, p.mrn, p.given, p.family, p.birth_date, p.sex, p.restricted
            FROM json_each(?) AS j CROSS JOIN patient AS p ON p.id = j.value
            """,
            [.text(list)]
        ) { found[$0.int64(0)] = PatientSearch.match($0) }
        return ids.compactMap { id in found[id].map { (id, $0) } }
    }
}
