import Glibc
import WardPluginAPI

/// A time as an auditor writes it for `--since` and `--until`, as milliseconds since the epoch.
///
/// - a duration ago: `30d`, `12h`, `45m`, `1h30m` (`d` for days, then the site file's units);
/// - `today`, `yesterday`: the start of that UTC day, as the log's times are UTC;
/// - a UTC day or time: `2026-11-22`, `2026-11-22T09:30`, `2026-11-22T09:30:05`, with a
///   fraction of a second and a `Z` allowed;
/// - a time with its offset: `2026-11-27T10:33-05:00`, `…+0530`: read as that instant
///   (15:33Z for the first), never as seconds.
///
/// Anything else is nil, for the caller to refuse: an auditor's question read wrong is a wrong
/// answer given silently.
public enum AuditTime {
    public static func parse(_ text: String, now: Int64 = UTCTimestamp.nowMilliseconds()) -> Int64? {
        let day: Int64 = 86_400_000
        switch text {
        case "today": return now - now.floorMod(day)
        case "yesterday": return now - now.floorMod(day) - day
        default: break
        }
        if let ago = duration(text) { return now - ago }
        if let (time, offset) = splitOffset(text) {
            return UTCTimestamp.parse(String(time)).map { $0 - offset }
        }
        // After the day, a time holds digits, `:` and `.` only: a `-` there is an offset that
        // did not read (`T10:33-5`), which the day's reader would take for seconds.
        if let t = text.firstIndex(where: { $0 == "T" || $0 == " " }),
            text[text.index(after: t)...].contains(where: { $0 == "+" || $0 == "-" })
        {
            return nil
        }
        return UTCTimestamp.parse(text)
    }

    /// `30d`, `2d12h`: days first, then what `DurationText` reads; nil for anything else.
    private static func duration(_ text: String) -> Int64? {
        guard let first = text.first, first.isASCII, first.isNumber else { return nil }
        var rest = Substring(text)
        var total: Int64 = 0
        if let d = rest.firstIndex(of: "d"), let days = Int64(rest[..<d]), days <= 100_000 {
            total = days * 86_400_000
            rest = rest[rest.index(after: d)...]
            if rest.isEmpty { return total }
        }
        guard let parsed = DurationText.parse(String(rest)) else { return nil }
        return total + parsed.components.seconds * 1000 + parsed.components.attoseconds / 1_000_000_000_000_000
    }

    /// `2026-11-27T10:33-05:00` → (`2026-11-27T10:33`, −5 h in ms); nil when the text ends in
    /// no `±HH:MM` or `±HHMM` after a time.
    private static func splitOffset(_ text: String) -> (Substring, Int64)? {
        guard let t = text.firstIndex(of: "T"),
            let sign = text[t...].lastIndex(where: { $0 == "+" || $0 == "-" })
        else { return nil }
        let digits = text[text.index(after: sign)...].filter { $0 != ":" }
        let colons = text[text.index(after: sign)...].filter { $0 == ":" }.count
        guard digits.count == 4, colons <= 1, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
            let hours = Int64(digits.prefix(2)), let minutes = Int64(digits.suffix(2)), hours <= 23, minutes <= 59
        else { return nil }
        let offset = (hours * 60 + minutes) * 60_000
        return (text[..<sign], text[sign] == "-" ? -offset : offset)
    }
}

extension Int64 {
    fileprivate func floorMod(_ d: Int64) -> Int64 {
        let r = self % d
        return r < 0 ? r + d : r
    }
}
