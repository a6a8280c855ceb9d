import FoundationEssentials
import WardCore
import WardRecords

/// How the shell writes dates, names and values: one place, so every table reads the same.
enum ChartFormat {
    /// `2020-05-13T21:20-07:00`: when a note was written or a value taken, to the minute in the
    /// site's zone (`LocalTime`), with the offset, so a time says which instant it is on every
    /// host (the store keeps the instant, not the offset the source wrote). A value that is a
    /// day (`RecordDay`) is written as that day, without a time it does not have.
    static func time(_ date: Date?, in zone: LocalTime.Zone? = nil) -> String {
        guard let date else { return "" }
        if let day = RecordDay.day(of: date) { return CivilDate.string(days: day) }
        return LocalTime.minute(seconds(date), in: zone)
    }

    /// `2020-05-13T21:20:05-07:00`: an instant to the second with its offset (RFC 3339), as
    /// JSON and CSV give it (`TableValue`); a value that is a day, as that day (`2020-05-13`).
    static func instant(_ date: Date, in zone: LocalTime.Zone? = nil) -> String {
        if let day = RecordDay.day(of: date) { return CivilDate.string(days: day) }
        return LocalTime.second(seconds(date), in: zone)
    }

    /// `2020-05-13`: onset, recorded, authored: the day in the site's zone, as `time` writes
    /// it. A FHIR date without a time is that day in every zone (`RecordDay`). `show --since`
    /// and `--until` take the same days (`RowFilter`).
    static func day(_ date: Date?, in zone: LocalTime.Zone? = nil) -> String {
        guard let date else { return "" }
        return CivilDate.string(days: days(date, in: zone))
    }

    /// The day `day(_:)` writes, counted from 1970-01-01.
    static func days(_ date: Date, in zone: LocalTime.Zone? = nil) -> Int {
        RecordDay.day(of: date) ?? LocalTime.fields(seconds(date), in: zone).days
    }

    /// Whole seconds since 1970, rounded toward the past as a clock reads (`12:08:59` is
    /// `12:08`). The store keeps whole seconds; the clamp only keeps a damaged value (a year
    /// past any calendar's) from trapping the conversion.
    private static func seconds(_ date: Date) -> Int64 {
        let seconds = date.timeIntervalSince1970.rounded(.down)
        guard seconds.isFinite else { return 0 }
        return Int64(max(-1e15, min(1e15, seconds)))
    }

    /// `56 years`, `14 months`, `12 days`: the age on `date` (its day in the site's zone) of
    /// someone born on `birthDate` (`YYYY-MM-DD`; a partial `YYYY-MM` or `YYYY` gives `about
    /// …`); empty when the birth date is not a date or is after `date`.
    static func age(birthDate: String, on date: Date) -> String {
        let today = LocalTime.fields(seconds(date)).days
        let (year, month, day) = CivilDate.fields(days: today)
        let parts = birthDate.split(separator: "-", omittingEmptySubsequences: false).map { Int($0) }
        guard (1...3).contains(parts.count), birthDate.utf8.first != UInt8(ascii: "-"),
            let born = parts[0], parts.allSatisfy({ $0 != nil })
        else { return "" }
        func plural(_ count: Int, _ unit: String) -> String { count == 1 ? "1 \(unit)" : "\(count) \(unit)s" }
        guard parts.count == 3 else {
            // A year, or a year and a month: the age within one.
            let months = (year - born) * 12 + (parts.count == 2 ? month - (parts[1] ?? 1) : 0)
            guard months >= 0 else { return "" }
            return months >= 24 || parts.count == 1
                ? "about " + plural(months / 12, "year") : "about " + plural(months, "month")
        }
        guard let bornDays = CivilDate.days(parsing: birthDate) else { return "" }
        let (_, bornMonth, bornDay) = CivilDate.fields(days: bornDays)
        let months = (year - born) * 12 + (month - bornMonth) - (day < bornDay ? 1 : 0)
        guard today >= bornDays else { return "" }
        if months >= 24 { return plural(months / 12, "year") }
        if months >= 1 { return plural(months, "month") }
        return plural(today - bornDays, "day")
    }

    /// `Family, Given`.
    static func name(given: String, family: String) -> String {
        given.isEmpty ? family : "\(family), \(given)"
    }

    /// A value as a clinician reads it: `72`, `5.4`, or the coded text.
    static func value(_ observation: Observation) -> String {
        if let value = observation.value { return self.value(value) }
        return observation.text ?? ""
    }

    /// `72`, `5.4`: a number as a clinician reads it, four significant digits at most.
    static func value(_ number: Double) -> String {
        number.rounded() == number && abs(number) < 1e15 ? String(Int64(number)) : PrintfNumber.format("%.4g", number)
    }

    /// A UCUM unit as people write it, where they write it otherwise (`Cel` is °C, `mm[Hg]`
    /// mmHg, `kg/m2` kg/m²); every other unit as the record holds it. JSON keeps the
    /// record's code, which a program can look up.
    static func unit(_ code: String) -> String {
        humanUnits[code] ?? code
    }

    private static let humanUnits: [String: String] = [
        "Cel": "°C", "[degF]": "°F", "mm[Hg]": "mmHg", "kg/m2": "kg/m²", "m2": "m²", "[lb_av]": "lb", "[in_i]": "in",
        "[ft_i]": "ft", "ug": "µg", "ug/dL": "µg/dL", "ug/L": "µg/L", "ug/mL": "µg/mL", "uL": "µL",
        "10*3/uL": "10³/µL", "10*6/uL": "10⁶/µL", "10*9/L": "10⁹/L", "10*12/L": "10¹²/L", "umol/L": "µmol/L",
        "mL/min/{1.73_m2}": "mL/min/1.73 m²",
    ]

    /// A report's result as a clinician reads it: `Glucose: 95 mg/dL`, `SARS-CoV-2 RNA …:
    /// Detected`, or its name alone when the report gave no value.
    static func result(_ result: ReportResult) -> String {
        if let number = result.value {
            let unit = self.unit(result.unit)
            return "\(result.name): \(value(number))" + (unit.isEmpty ? "" : " \(unit)")
        }
        if let text = result.text { return "\(result.name): \(text)" }
        return result.name
    }

    /// A list of names in one cell: `Diabetic diet; Exercise`.
    static func list(_ items: [String]) -> String { items.joined(separator: "; ") }

    /// What a report found: its results with their values, else its conclusion.
    static func findings(_ report: DiagnosticReport) -> String {
        report.results.isEmpty ? conclusion(report) : list(report.results.map(result))
    }

    /// A report's conclusion, else what its presented form holds (a note's text, or an
    /// attachment's title, type and size): Synthea's notes are reports with only the latter.
    static func conclusion(_ report: DiagnosticReport) -> String {
        report.conclusion.isEmpty ? report.presentedForm : report.conclusion
    }
}
