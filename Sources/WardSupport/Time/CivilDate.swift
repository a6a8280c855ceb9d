/// Days of the proleptic Gregorian calendar in UTC, counted from 1970-01-01, without
/// Foundation's calendars.
///
/// One copy for every place that turns an instant into a day or a day into an instant: the
/// demo generator (a million birth dates), FHIR dates on import, the audit log's timestamps
/// (one a record), and the days and times a chart shows. `Calendar` and `DateFormatter` are slow
/// and draw in ICU: the first date a chart showed through them read its time-zone, locale and
/// calendar data, 2 MiB more resident memory for a value this arithmetic gives exactly; and a
/// formatter in the process's local zone showed a FHIR date (`2015-12-21`, kept as that day's
/// first instant in UTC) as the day before, west of Greenwich.
///
/// H. Hinnant's `days_from_civil` and `civil_from_days`, exact for every `Int` day a record can
/// hold.
public enum CivilDate {
    /// Year, month (1–12) and day of the month (1–31) of a count of days since 1970-01-01.
    public static func fields(days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// Days since 1970-01-01 of a date (the inverse of `fields(days:)`).
    public static func days(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// `YYYY-MM-DD` for a count of days since 1970-01-01.
    public static func string(days: Int) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(10)
        append(days: days, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends `string(days:)`'s text to `out`, where a longer text is being built.
    public static func append(days: Int, to out: inout [UInt8]) {
        let (year, month, day) = fields(days: days)
        if year < 0 { out.append(UInt8(ascii: "-")) }
        appendDigits(abs(year), width: 4, to: &out)
        out.append(UInt8(ascii: "-"))
        appendDigits(month, width: 2, to: &out)
        out.append(UInt8(ascii: "-"))
        appendDigits(day, width: 2, to: &out)
    }

    /// The days since 1970-01-01 of a day written exactly `YYYY-MM-DD`, or nil for any other
    /// text and for a day the calendar does not have (`2021-02-29`).
    public static func days(parsing text: some StringProtocol) -> Int? {
        let bytes = Array(text.utf8)
        guard bytes.count == 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-") else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for byte in bytes[range] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            (1...12).contains(month), day >= 1
        else { return nil }
        let days = days(year: year, month: month, day: day)
        // A day past the month's end lands in the next month.
        return fields(days: days) == (year, month, day) ? days : nil
    }

    /// The day of an instant given in seconds since 1970-01-01T00:00Z, and the second of that
    /// day: rounded toward the past, so that an instant before 1970 falls on the day before.
    public static func split(seconds: Int64) -> (days: Int, secondOfDay: Int) {
        let days = seconds / 86_400
        let rest = seconds - days * 86_400
        return rest < 0 ? (Int(days) - 1, Int(rest) + 86_400) : (Int(days), Int(rest))
    }

    /// Appends `value` (not negative) in decimal, zero-padded to `width`; a wider value keeps
    /// all its digits.
    public static func appendDigits(_ value: Int, width: Int, to out: inout [UInt8]) {
        var divisor = 1
        for _ in 1..<max(width, 1) { divisor *= 10 }
        while value / divisor >= 10 { divisor *= 10 }
        while divisor > 0 {
            out.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
            divisor /= 10
        }
    }
}
