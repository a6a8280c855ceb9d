import Glibc
import WardPluginAPI
import WardSupport

/// Wall-clock time as the audit log writes it: `2026-11-22T09:41:07.123Z`, UTC, milliseconds.
///
/// Fixed width and zero-padded, so the text sorts as the time does and `ward audit show
/// --since` compares strings.
public enum UTCTimestamp {
    /// Milliseconds since the Unix epoch, from `CLOCK_REALTIME`.
    public static func nowMilliseconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
    }

    /// `YYYY-MM-DDTHH:MM:SS.mmmZ` for `milliseconds` since the epoch.
    public static func format(milliseconds: Int64) -> String {
        var out = [UInt8]()
        out.reserveCapacity(24)
        append(milliseconds: milliseconds, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends `format(milliseconds:)`'s text to `out`, where a record is being built.
    ///
    /// The years 1970 to 9999, every real clock, take the civil calendar's arithmetic
    /// (`CivilDate`): every audit record has a timestamp, and `gmtime_r` cost more than the rest
    /// of it. Other times take `gmtime_r`; `AuditRecordBytesTests` checks the two agree.
    public static func append(milliseconds: Int64, to out: inout [UInt8]) {
        let seconds = milliseconds.floorDiv(1000)
        let ms = Int(milliseconds - seconds * 1000)
        guard seconds >= 0, seconds < 253_402_300_800 else {
            appendWithCLibrary(seconds: seconds, ms: ms, to: &out)
            return
        }
        let (days, secondOfDay) = CivilDate.split(seconds: seconds)
        let (year, month, day) = CivilDate.fields(days: days)
        appendFields(
            year: year,
            month: month,
            day: day,
            hour: secondOfDay / 3600,
            minute: secondOfDay / 60 % 60,
            second: secondOfDay % 60,
            ms: ms,
            to: &out
        )
    }

    private static func appendWithCLibrary(seconds: Int64, ms: Int, to out: inout [UInt8]) {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        appendFields(
            year: Int(parts.tm_year) + 1900,
            month: Int(parts.tm_mon) + 1,
            day: Int(parts.tm_mday),
            hour: Int(parts.tm_hour),
            minute: Int(parts.tm_min),
            second: Int(parts.tm_sec),
            ms: ms,
            to: &out
        )
    }

    private static func appendFields(
        year: Int,
        month: Int,
        day: Int,
        hour: Int,
        minute: Int,
        second: Int,
        ms: Int,
        to out: inout [UInt8]
    ) {
        func digits(_ n: Int, _ width: Int, then separator: UInt8) {
            CivilDate.appendDigits(max(0, n), width: width, to: &out)
            out.append(separator)
        }
        digits(year, 4, then: UInt8(ascii: "-"))
        digits(month, 2, then: UInt8(ascii: "-"))
        digits(day, 2, then: UInt8(ascii: "T"))
        digits(hour, 2, then: UInt8(ascii: ":"))
        digits(minute, 2, then: UInt8(ascii: ":"))
        digits(second, 2, then: UInt8(ascii: "."))
        digits(ms, 3, then: UInt8(ascii: "Z"))
    }

    /// Milliseconds since the epoch for a UTC time written `2026-11-22`, `2026-11-22T09:41`,
    /// `2026-11-22T09:41:07`, `2026-11-22 09:41:07.123`, each with an optional trailing `Z`.
    /// Nil when it is none of these.
    public static func parse(_ text: String) -> Int64? {
        var s = Substring(text)
        if s.hasSuffix("Z") { s = s.dropLast() }
        let fields = s.split(omittingEmptySubsequences: false) { "-T :.".contains($0) }
        guard [3, 5, 6, 7].contains(fields.count), fields.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCII) })
        else { return nil }
        let numbers = fields.compactMap { Int($0) }
        guard numbers.count == fields.count else { return nil }
        var parts = tm()
        parts.tm_year = Int32(numbers[0] - 1900)
        parts.tm_mon = Int32(numbers[1] - 1)
        parts.tm_mday = Int32(numbers[2])
        parts.tm_hour = Int32(numbers.count > 3 ? numbers[3] : 0)
        parts.tm_min = Int32(numbers.count > 4 ? numbers[4] : 0)
        parts.tm_sec = Int32(numbers.count > 5 ? numbers[5] : 0)
        guard (1...12).contains(numbers[1]), (1...31).contains(numbers[2]), parts.tm_hour < 24,
            parts.tm_min < 60, parts.tm_sec < 61
        else { return nil }
        let fraction = numbers.count > 6 ? fields[6] : ""
        guard fraction.count <= 3 else { return nil }
        let ms = Int(fraction.padding(toLength: 3)) ?? 0
        return Int64(timegm(&parts)) * 1000 + Int64(ms)
    }
}

extension Substring {
    fileprivate func padding(toLength length: Int) -> String {
        String(self) + String(repeating: "0", count: Swift.max(0, length - count))
    }
}

extension Int64 {
    fileprivate func floorDiv(_ d: Int64) -> Int64 {
        let q = self / d
        return (self % d != 0 && (self < 0) != (d < 0)) ? q - 1 : q
    }
}
