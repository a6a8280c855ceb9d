import Foundation

/// What `show SECTION WORD... [--since DAY] [--until DAY]` keeps of a section's rows.
///
/// Words match the row's name (the lab, the vital, the medication...), case-insensitively, each
/// anywhere in it, and every word must match — as `find` does with a patient's name. Days are the
/// local calendar day, both ends included; a row without a date is left out once a day is given,
/// since nothing says it falls inside.
///
/// The filter is what the user looked for, which may be clinical ("hiv"): the access record notes
/// the section, never the filter.
struct RowFilter: Sendable, Equatable {
    let words: [String]
    /// The first instant kept, midnight of `--since`.
    let since: Date?
    /// The first instant left out, midnight after `--until`.
    let end: Date?

    /// No filter: every row.
    static let none = RowFilter(words: [], since: nil, end: nil)

    init(words: [String], since: Date?, end: Date?) {
        self.words = words
        self.since = since
        self.end = end
    }

    /// Reads the words and the two day options, failing with `usage` for a day that is not one.
    init(words: [String], since: String?, until: String?, syntax: CommandSyntax) throws(UsageError) {
        self.words = words.map { $0.lowercased() }
        self.since = try since.map { text throws(UsageError) in try Self.day(text, "--since", syntax) }
        self.end = try until.map { text throws(UsageError) in
            let day = try Self.day(text, "--until", syntax)
            return Calendar.current.date(byAdding: .day, value: 1, to: day) ?? day
        }
        if let first = self.since, let end = self.end, end <= first {
            throw UsageError(
                .invalid("--until \(until ?? "") is before --since \(since ?? ""): no day is left to show"),
                syntax: syntax
            )
        }
    }

    var isEmpty: Bool { words.isEmpty && since == nil && end == nil }

    func keeps(name: String, date: Date?) -> Bool {
        let lowered = name.lowercased()
        guard words.allSatisfy({ lowered.contains($0) }) else { return false }
        if since == nil && end == nil { return true }
        guard let date else { return false }
        if let since, date < since { return false }
        if let end, date >= end { return false }
        return true
    }

    /// `2020-01-01`, a real day of the calendar (not `2020-02-30`), at local midnight.
    private static func day(_ text: String, _ option: String, _ syntax: CommandSyntax) throws(UsageError) -> Date {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd"
        formatter.isLenient = false
        guard text.utf8.count == 10, let date = formatter.date(from: text), formatter.string(from: date) == text else {
            throw UsageError(
                .invalid("\(option) takes a day as YYYY-MM-DD, such as 2020-01-31; got '\(text)'"),
                syntax: syntax
            )
        }
        return Calendar.current.startOfDay(for: date)
    }
}
