@_spi(_Unicode) import Swift

/// The words a name is found by, folded so that what a clinician types finds what was imported:
/// `obrien`, `o'brien` and `o brien` all find O'Brien, `sondergaard` finds Søndergaard.
///
/// Folding: lower case, diacritics removed (é → e), and the Latin letters that have no accent to
/// remove written as a keyboard without them would: ø → o, æ → ae, œ → oe, ß → ss, ł → l, đ and
/// ð → d, þ → th, ı → i. A word is a run of letters and digits; an apostrophe inside a word
/// (`'`, `’`, `ʼ`, `` ` ``, `´`) joins its parts, and a name's words are the joined word and its
/// parts too (`o'brien` → `obrien`, `o`, `brien`), while a search's words are the joined word
/// alone, so `o'brien` asks for O'Brien and not for every O.
///
/// Both stores index these words (SQLite's FTS table over `patient.name_words`, PostgreSQL's
/// `patient_name_token`), and `PatientSearch` ranks by them, so both find the same patients.
public enum NameWords {
    /// The words a stored name is indexed under, each once, in order of first appearance.
    public static func indexed(_ name: String) -> [String] {
        var words: [String] = []
        var seen = Set<String>()
        func add(_ word: String) { if seen.insert(word).inserted { words.append(word) } }
        for word in split(fold(name)) {
            add(word.joined())
            if word.count > 1 { word.forEach(add) }
        }
        return words
    }

    /// The words a search for `text` looks for: each joined across its apostrophes.
    public static func searched(_ text: String) -> [String] {
        split(fold(text)).map { $0.joined() }
    }

    /// The words a patient is found by: those of its given names, then of its family name, each
    /// once. Every store indexes exactly these (SQLite's `patient.name_words`, PostgreSQL's
    /// `name_words` and `patient_name_token`), whichever way the patient was written.
    static func indexed(given: String, family: String) -> [String] {
        var seen = Set<String>()
        return (PatientSearch.tokens(given) + PatientSearch.tokens(family)).filter { seen.insert($0).inserted }
    }

    /// The words of a patient's given and family names, space-separated, as SQLite's
    /// `patient.name_words` holds them for its full-text index.
    public static func column(given: String, family: String) -> String {
        indexed(given: given, family: family).joined(separator: " ")
    }

    /// Lower case without diacritics, the letters without one written out. ASCII text, nearly
    /// every name, is only lower-cased: Foundation's folding cost a fifth of a `find`.
    static func fold(_ text: String) -> String {
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return text.lowercased() }
        var written = ""
        written.reserveCapacity(text.utf8.count)
        for character in text.lowercased() {
            switch character {
            case "ø": written += "o"
            case "æ": written += "ae"
            case "œ": written += "oe"
            case "ß", "ẞ": written += "ss"
            case "ł": written += "l"
            case "đ", "ð": written += "d"
            case "þ": written += "th"
            case "ı": written += "i"
            default: written.append(character)
            }
        }
        return caseFolded(withoutDiacritics(written))
    }

    /// Each mark that follows a letter dropped, and each precomposed letter whose canonical
    /// decomposition carries one of the combining diacritics (U+0300–U+036F) written without it:
    /// what Foundation's diacritic-insensitive folding gives, which indexes written before kept.
    /// A precomposed letter of another script (Devanagari क़, Arabic آ) stays whole, as there.
    static func withoutDiacritics(_ text: String) -> String {
        var kept = String.UnicodeScalarView()
        var afterLetter = false
        for scalar in text.unicodeScalars {
            // Below U+00C0 nothing decomposes and nothing is a mark.
            if scalar.value < 0xC0 {
                kept.append(scalar)
                afterLetter = true
                continue
            }
            let decomposed = Array(String(scalar)._nfd)
            if scalar.properties.generalCategory == .nonspacingMark {
                if !afterLetter { kept += decomposed }
                continue
            }
            if decomposed.count == 1 || decomposed.dropFirst().contains(where: isCombiningDiacritic) {
                kept += decomposed.filter { !isCombiningDiacritic($0) }
            } else {
                kept.append(scalar)
            }
            afterLetter = true
        }
        return String(kept)
    }

    /// Full case folding of lower-case text: the letters whose folding differs from their lower
    /// case (µ → μ, ς → σ, ﬁ → fi) through their upper case.
    static func caseFolded(_ text: String) -> String {
        var folded = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if scalar.properties.changesWhenCaseFolded {
                folded += String(scalar).uppercased().lowercased().unicodeScalars
            } else {
                folded.append(scalar)
            }
        }
        return String(folded)
    }

    private static func isCombiningDiacritic(_ scalar: Unicode.Scalar) -> Bool {
        (0x300...0x36F).contains(scalar.value)
    }

    /// Apostrophes as a name writes them: they join, never split.
    static func isApostrophe(_ character: Character) -> Bool {
        character == "'" || character == "\u{2019}" || character == "\u{02BC}" || character == "`"
            || character == "\u{00B4}" || character == "\u{2018}"
    }

    /// Words as lists of their apostrophe-separated parts: `o'brien-smith` → `[[o, brien], [smith]]`.
    private static func split(_ folded: String) -> [[String]] {
        var words: [[String]] = []
        var parts: [String] = []
        var part = ""
        func endPart() {
            if !part.isEmpty { parts.append(part) }
            part = ""
        }
        func endWord() {
            endPart()
            if !parts.isEmpty { words.append(parts) }
            parts = []
        }
        for character in folded {
            if character.isLetter || character.isNumber {
                part.append(character)
            } else if isApostrophe(character), !part.isEmpty {
                endPart()
            } else {
                endWord()
            }
        }
        endWord()
        return words
    }
}
