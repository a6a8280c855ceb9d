import FoundationEssentials
import WardCore

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
/// In a section whose rows have a status (`ChartSection.statuses`), a word that names one keeps
/// the rows of that status instead (`show meds active`, `show problems resolved`).
///
/// The filter is what the user looked for, which may be clinical ("hiv"): the access record notes
/// the section, never the filter.
struct RowFilter: Sendable, Equatable {
    let words: [String]
    /// The first day kept (`--since`), counted from 1970-01-01.
    let since: Int?
    /// The last day kept (`--until`).
    let until: Int?
    /// The statuses kept, nil for every one.
    let statuses: Set<String>?

    /// No filter: every row.
    static let none = RowFilter(words: [], since: nil, until: nil)

    init(words: [String], since: Int?, until: Int?, statuses: Set<String>? = nil) {
        self.words = words
        self.since = since
        self.until = until
        self.statuses = statuses
    }

    /// Reads the words and the two day options, failing with `usage` for a day that is not one.
    /// A word that `statuses` holds (the section's: `ChartSection.statuses`) keeps those statuses.
    init(
        words: [String],
        since: String?,
        until: String?,
        statuses: [String: Set<String>] = [:],
        syntax: CommandSyntax
    ) throws(UsageError) {
        let normalized = words.map(Self.normalized).filter { !$0.isEmpty }
        self.words = normalized.filter { statuses[$0] == nil }
        let kept = normalized.compactMap { statuses[$0] }
        self.statuses = kept.isEmpty ? nil : kept.reduce(into: Set<String>()) { $0.formUnion($1) }
        self.since = try since.map { text throws(UsageError) in try Self.day(text, "--since", syntax) }
        self.until = try until.map { text throws(UsageError) in try Self.day(text, "--until", syntax) }
        if let first = self.since, let last = self.until, last < first {
            throw UsageError(
                .invalid("--until \(until ?? "") is before --since \(since ?? ""): no day is left to show"),
                syntax: syntax
            )
        }
    }

    var isEmpty: Bool { words.isEmpty && since == nil && until == nil && statuses == nil }

    /// Whether a row of this `name`, `code` (empty when it has none), `date` and `status` is kept.
    func keeps(name: String, code: String, date: Date?, status: String = "") -> Bool {
        if let statuses, !statuses.contains(status) { return false }
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
        String(String.UnicodeScalarView(text.lowercased().unicodeScalars.filter(ScalarClass.alphanumeric.contains)))
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
