import WardCore

/// FHIR `date` and `dateTime` values, read without Foundation's formatters.
///
/// FHIR allows partial dates (`2019`, `2019-02`), dates, and date-times with seconds, optional
/// fractions and a zone (`2019-02-17T06:16:51.123-05:00`). `ISO8601DateFormatter` takes only
/// some of these and is slow across the thousands of observations of one Synthea bundle.
enum FHIRDate {
    /// Unix seconds of the instant (partial dates: their first moment, UTC), or nil if malformed.
    static func seconds(_ text: String) -> Int64? {
        let bytes = Array(text.utf8)
        var at = 0
        func digits(_ count: Int) -> Int? {
            guard at + count <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[at..<(at + count)] {
                guard (48...57).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            at += count
            return value
        }
        func expect(_ byte: UInt8) -> Bool {
            guard at < bytes.count, bytes[at] == byte else { return false }
            at += 1
            return true
        }
        guard let year = digits(4) else { return nil }
        var month = 1
        var day = 1
        if at < bytes.count {
            guard expect(UInt8(ascii: "-")), let m = digits(2), (1...12).contains(m) else { return nil }
            month = m
        }
        if at < bytes.count {
            guard expect(UInt8(ascii: "-")), let d = digits(2), (1...31).contains(d) else { return nil }
            day = d
        }
        var seconds = Int64(civilDays(year: year, month: month, day: day)) * 86_400
        guard at < bytes.count else { return seconds }
        guard expect(UInt8(ascii: "T")), let hour = digits(2), hour < 24, expect(UInt8(ascii: ":")),
            let minute = digits(2), minute < 60, expect(UInt8(ascii: ":")), let second = digits(2), second < 61
        else { return nil }
        seconds += Int64(hour * 3600 + minute * 60 + second)
        if expect(UInt8(ascii: ".")) {
            let start = at
            while at < bytes.count, (48...57).contains(bytes[at]) { at += 1 }
            guard at > start else { return nil }
        }
        if expect(UInt8(ascii: "Z")) {
            return at == bytes.count ? seconds : nil
        }
        guard at < bytes.count else { return seconds }  // no zone: taken as UTC
        let sign: Int64
        if expect(UInt8(ascii: "+")) { sign = 1 } else if expect(UInt8(ascii: "-")) { sign = -1 } else { return nil }
        guard let zoneHours = digits(2), expect(UInt8(ascii: ":")), let zoneMinutes = digits(2), at == bytes.count
        else { return nil }
        return seconds - sign * Int64(zoneHours * 3600 + zoneMinutes * 60)
    }

    /// A FHIR `date` as Ward keeps birth dates (`YYYY-MM-DD`, or shorter when partial), or nil.
    static func calendarDate(_ text: String) -> String? {
        guard [4, 7, 10].contains(text.utf8.count), seconds(text) != nil else { return nil }
        return text
    }

    private static func civilDays(year: Int, month: Int, day: Int) -> Int {
        CivilDate.days(year: year, month: month, day: day)
    }
}
