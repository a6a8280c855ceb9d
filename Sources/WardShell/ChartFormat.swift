import Foundation
import WardRecords

/// How the shell writes dates, names and values: one place, so every table reads the same.
enum ChartFormat {
    /// `2020-05-06T12:08Z`: when a note was written or a value taken, in ISO 8601 and in UTC, so
    /// a time reads the same on every machine and says which zone it is in (the store keeps the
    /// instant, not the offset the source wrote).
    static func time(_ date: Date?) -> String {
        guard let date else { return "" }
        return timeFormatter.string(from: date)
    }

    /// `2020-05-06`: onset, recorded, authored.
    static func day(_ date: Date?) -> String {
        guard let date else { return "" }
        return dayFormatter.string(from: date)
    }

    /// `Family, Given`.
    static func name(given: String, family: String) -> String {
        given.isEmpty ? family : "\(family), \(given)"
    }

    /// A value as a clinician reads it: `72`, `5.4`, or the coded text.
    static func value(_ observation: Observation) -> String {
        if let value = observation.value {
            return value.rounded() == value && abs(value) < 1e15
                ? String(Int64(value)) : String(format: "%.4g", value)
        }
        return observation.text ?? ""
    }

    /// A list of names in one cell: `Diabetic diet; Exercise`.
    static func list(_ items: [String]) -> String { items.joined(separator: "; ") }

    /// What a report found: its results by name, else its conclusion.
    static func findings(_ report: DiagnosticReport) -> String {
        report.results.isEmpty ? conclusion(report) : list(report.results)
    }

    /// A report's conclusion, else what its presented form holds (a note's text, or an
    /// attachment's title, type and size): Synthea's notes are reports with only the latter.
    static func conclusion(_ report: DiagnosticReport) -> String {
        report.conclusion.isEmpty ? report.presentedForm : report.conclusion
    }

    private static let timeFormatter = formatter("yyyy-MM-dd'T'HH:mm'Z'", zone: TimeZone(identifier: "UTC"))
    private static let dayFormatter = formatter("yyyy-MM-dd")

    private static func formatter(_ format: String, zone: TimeZone? = nil) -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        if let zone { formatter.timeZone = zone }
        formatter.dateFormat = format
        return formatter
    }
}
