/// Durations as site files write them: `"500ms"`, `"30s"`, `"5m"`, `"1h30m"`, `"0s"`.
///
/// A unit is required on every number: `"300"` is refused rather than guessed at, because a
/// timeout read in the wrong unit is a security setting silently wrong by a factor of 60 or 1000.
public enum DurationText {
    public static func parse(_ text: String) -> Duration? {
        var total = Duration.zero
        var number: Int64?
        var unit = ""
        var sawAny = false

        func flush() -> Bool {
            guard let n = number else { return unit.isEmpty }
            let d: Duration
            switch unit {
            case "ms": d = .milliseconds(n)
            case "s": d = .seconds(n)
            case "m": d = .seconds(n * 60)
            case "h": d = .seconds(n * 3600)
            default: return false
            }
            total += d
            number = nil
            unit = ""
            sawAny = true
            return true
        }

        for ch in text {
            if let digit = ch.wholeNumberValue, ch.isASCII {
                if !unit.isEmpty { guard flush() else { return nil } }
                let (m, o1) = (number ?? 0).multipliedReportingOverflow(by: 10)
                let (a, o2) = m.addingReportingOverflow(Int64(digit))
                if o1 || o2 || a > 1_000_000_000 { return nil }
                number = a
            } else if ch.isLetter, ch.isASCII {
                guard number != nil else { return nil }
                unit.append(ch)
            } else {
                return nil
            }
        }
        guard flush(), sawAny else { return nil }
        return total
    }

    /// The shortest form that parses back: `"5m"`, `"1h30m"`, `"500ms"`.
    public static func format(_ d: Duration) -> String {
        var ms = d.nanoseconds / 1_000_000
        if ms == 0 { return "0s" }
        var out = ""
        if ms < 0 {
            out = "-"
            ms = -ms
        }
        let h = ms / 3_600_000
        let m = ms / 60_000 % 60
        let s = ms / 1000 % 60
        let rest = ms % 1000
        if h > 0 { out += "\(h)h" }
        if m > 0 { out += "\(m)m" }
        if s > 0 { out += "\(s)s" }
        if rest > 0 { out += "\(rest)ms" }
        return out
    }
}
