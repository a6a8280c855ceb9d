import Foundation
import WardPluginAPI
import WardRecords

/// How the shell writes dates, names and values: one place, so every table reads the same.
enum ChartFormat {
    /// `2020-05-06T12:08Z`: when a note was written or a value taken, in ISO 8601 and in UTC, so
    /// a time reads the same on every machine and says which zone it is in (the store keeps the
    /// instant, not the offset the source wrote).
    static func time(_ date: Date?) -> String {
        guard let date else { return "" }
        return utc(date, withSeconds: false)
    }

    /// `2020-05-06T12:08:09Z`: an instant to the second, as JSON and CSV give it (`TableValue`).
    static func instant(_ date: Date) -> String {
        utc(date, withSeconds: true)
    }

    /// `2020-05-06`: onset, recorded, authored. The day in UTC, as `time` writes it: a FHIR date
    /// without a time (`2020-05-06`) is kept as that day's first instant in UTC, and a day in the
    /// terminal's zone showed it as the day before west of Greenwich. `show --since` and
    /// `--until` take the same days (`RowFilter`).
    static func day(_ date: Date?) -> String {
        guard let date else { return "" }
        return CivilDate.string(days: CivilDate.split(seconds: seconds(date)).days)
    }

    private static func utc(_ date: Date, withSeconds: Bool) -> String {
        let (days, secondOfDay) = CivilDate.split(seconds: seconds(date))
        var out: [UInt8] = []
        out.reserveCapacity(20)
        CivilDate.append(days: days, to: &out)
        out.append(UInt8(ascii: "T"))
        CivilDate.appendDigits(secondOfDay / 3600, width: 2, to: &out)
        out.append(UInt8(ascii: ":"))
        CivilDate.appendDigits(secondOfDay / 60 % 60, width: 2, to: &out)
        if withSeconds {
            out.append(UInt8(ascii: ":"))
            CivilDate.appendDigits(secondOfDay % 60, width: 2, to: &out)
        }
        out.append(UInt8(ascii: "Z"))
        return String(decoding: out, as: UTF8.self)
    }

    /// Whole seconds since 1970, rounded toward the past as a clock reads (`12:08:59` is
    /// `12:08`). The store keeps whole seconds; the clamp only keeps a damaged value (a year
    /// past any calendar's) from trapping the conversion.
    private static func seconds(_ date: Date) -> Int64 {
        let seconds = date.timeIntervalSince1970.rounded(.down)
        guard seconds.isFinite else { return 0 }
        return Int64(max(-1e15, min(1e15, seconds)))
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
}
