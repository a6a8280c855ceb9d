import Glibc

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
        var seconds = time_t(milliseconds.floorDiv(1000))
        let ms = Int(milliseconds - Int64(seconds) * 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        // Digits into one buffer: every audit record has a timestamp, and joining eleven small
        // strings cost more than the record's hash.
        var out = [UInt8]()
        out.reserveCapacity(24)
        func digits(_ n: Int, _ width: Int, then separator: Character?) {
            var divisor = 1
            for _ in 1..<width { divisor *= 10 }
            var n = max(0, n)
            // A year past 9999 keeps all its digits, as `pad` did.
            while n / divisor >= 10 { divisor *= 10 }
            while divisor > 0 {
                out.append(UInt8(ascii: "0") + UInt8(n / divisor % 10))
                divisor /= 10
            }
            if let separator { out.append(separator.asciiValue!) }
        }
        digits(Int(parts.tm_year) + 1900, 4, then: "-")
        digits(Int(parts.tm_mon) + 1, 2, then: "-")
        digits(Int(parts.tm_mday), 2, then: "T")
        digits(Int(parts.tm_hour), 2, then: ":")
        digits(Int(parts.tm_min), 2, then: ":")
        digits(Int(parts.tm_sec), 2, then: ".")
        digits(ms, 3, then: "Z")
        return String(decoding: out, as: UTF8.self)
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
