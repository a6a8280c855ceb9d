import Foundation
import WardPluginAPI

/// What `show SECTION WORD... [--since DAY] [--until DAY]` keeps of a section's rows.
///
/// Words match the row's name (the lab, the vital, the medication...) as a clinician types them:
/// each anywhere in it, ignoring case, spaces and punctuation (`a1c` finds "Hemoglobin
/// A1c/Hemoglobin.total in Blood", `hemoglobin a1c` too); or the row's code (`4548-4`); or, for a
/// common abbreviation (`hba1c`, `bmi`, `ldl`: `ClinicalAbbreviations`), the codes and name words
/// it stands for. Every word must match, as `find` does with a patient's name. Days are the days
/// the chart shows (`ChartFormat.day`: in the site's zone, a FHIR date as its own day), both ends
/// included; a row without a date is left out once a day is given, since nothing says it falls
/// inside.
///
/// The filter is what the user looked for, which may be clinical ("hiv"): the access record notes
/// the section, never the filter.
struct RowFilter: Sendable, Equatable {
    let words: [String]
    /// The first day kept (`--since`), counted from 1970-01-01.
    let since: Int?
    /// The last day kept (`--until`).
    let until: Int?

    /// No filter: every row.
    static let none = RowFilter(words: [], since: nil, until: nil)

    init(words: [String], since: Int?, until: Int?) {
        self.words = words
        self.since = since
        self.until = until
    }

    /// Reads the words and the two day options, failing with `usage` for a day that is not one.
    init(words: [String], since: String?, until: String?, syntax: CommandSyntax) throws(UsageError) {
        self.words = words.map(Self.normalized).filter { !$0.isEmpty }
        self.since = try since.map { text throws(UsageError) in try Self.day(text, "--since", syntax) }
        self.until = try until.map { text throws(UsageError) in try Self.day(text, "--until", syntax) }
        if let first = self.since, let last = self.until, last < first {
            throw UsageError(
                .invalid("--until \(until ?? "") is before --since \(since ?? ""): no day is left to show"),
                syntax: syntax
            )
        }
    }

    var isEmpty: Bool { words.isEmpty && since == nil && until == nil }

    /// Whether a row of this `name`, `code` (empty when it has none) and `date` is kept.
    func keeps(name: String, code: String, date: Date?) -> Bool {
        if !words.isEmpty {
            let name = Self.normalized(name)
            let normalizedCode = Self.normalized(code)
            guard words.allSatisfy({ Self.matches($0, name: name, code: code, normalizedCode: normalizedCode) })
            else { return false }
        }
        if since == nil && until == nil { return true }
        guard let date else { return false }
        let day = ChartFormat.days(date)
        if let since, day < since { return false }
        if let until, day > until { return false }
        return true
    }

    /// One word against a row: in its name, as its code, or as an abbreviation of either.
    private static func matches(_ word: String, name: String, code: String, normalizedCode: String) -> Bool {
        if name.contains(word) || (!normalizedCode.isEmpty && normalizedCode == word) { return true }
        guard let meaning = ClinicalAbbreviations.meaning(of: word) else { return false }
        return meaning.codes.contains(code) || meaning.words.contains { name.contains($0) }
    }

    /// Lower case, letters and digits only: `HbA1c`, `hb a1c` and `Hb-A1c` read the same, and
    /// `4548-4` reads as `45484`. Linear in the text.
    static func normalized(_ text: String) -> String {
        String(String.UnicodeScalarView(text.lowercased().unicodeScalars.filter(CharacterSet.alphanumerics.contains)))
    }

    /// The day `text` names, which must be a real day of the calendar (`2020-01-01`, not
    /// `2020-02-30`).
    private static func day(_ text: String, _ option: String, _ syntax: CommandSyntax) throws(UsageError) -> Int {
        guard let days = CivilDate.days(parsing: text) else {
            throw UsageError(
                .invalid("\(option) takes a day as YYYY-MM-DD, such as 2020-01-31; got '\(text)'"),
                syntax: syntax
            )
        }
        return days
    }
}
