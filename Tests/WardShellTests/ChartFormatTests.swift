import Foundation
import Glibc
import Testing
import WardPluginAPI

@testable import WardShell

/// The days and times a chart shows, and JSON's instants: UTC, the same on every machine,
/// computed without ICU.
@Suite struct ChartFormatTests {
    /// What the C library writes for the same instant in UTC (`gmtime_r`, `strftime`).
    private func reference(_ seconds: Int64, _ format: String) -> String {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        var buffer = [CChar](repeating: 0, count: 64)
        let count = strftime(&buffer, buffer.count, format, &parts)
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    @Test func timesAndDays_readAsTheCLibraryWritesThemInUTC() {
        var generator = SystemRandomNumberGenerator()
        // 1900 to 2100, both sides of 1970, and the edges of days and leap years.
        var samples: [Int64] = [0, -1, 86_399, 86_400, -86_400, -86_401, 951_782_400, 4_107_542_399]
        for _ in 0..<20_000 { samples.append(Int64.random(in: -2_208_988_800..<4_107_542_400, using: &generator)) }
        for seconds in samples {
            let date = Date(timeIntervalSince1970: TimeInterval(seconds))
            #expect(ChartFormat.time(date) == reference(seconds, "%Y-%m-%dT%H:%MZ"), "\(seconds)")
            #expect(ChartFormat.day(date) == reference(seconds, "%Y-%m-%d"), "\(seconds)")
            #expect(ChartFormat.instant(date) == reference(seconds, "%Y-%m-%dT%H:%M:%SZ"), "\(seconds)")
        }
    }

    /// JSON's instants are the bytes `Date.ISO8601FormatStyle` wrote before.
    @Test func instants_areWhatTheISO8601FormatStyleWrote() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let date = Date(
                timeIntervalSince1970: TimeInterval(Int64.random(in: -2_208_988_800..<4_107_542_400, using: &generator))
            )
            #expect(ChartFormat.instant(date) == date.formatted(.iso8601), "\(date.timeIntervalSince1970)")
        }
    }

    @Test func aTimeWithinAMinute_isThatMinute_beforeAndAfter1970() {
        #expect(ChartFormat.time(Date(timeIntervalSince1970: 59.9)) == "1970-01-01T00:00Z")
        #expect(ChartFormat.time(Date(timeIntervalSince1970: -0.5)) == "1969-12-31T23:59Z")
        #expect(ChartFormat.day(Date(timeIntervalSince1970: -0.5)) == "1969-12-31")
    }

    @Test func noDate_isAnEmptyCell_andADamagedOne_doesNotTrap() {
        #expect(ChartFormat.time(nil) == "")
        #expect(ChartFormat.day(nil) == "")
        #expect(!ChartFormat.day(Date(timeIntervalSince1970: 1e300)).isEmpty)
        #expect(!ChartFormat.time(Date(timeIntervalSince1970: -.infinity)).isEmpty)
    }
}

/// The shared calendar arithmetic, against the C library.
@Suite struct CivilDateTests {
    @Test func days_roundTrip_andMatchTimegm() {
        for days in stride(from: -800_000, through: 800_000, by: 97) {
            let (year, month, day) = CivilDate.fields(days: days)
            #expect(CivilDate.days(year: year, month: month, day: day) == days)
            var parts = tm()
            parts.tm_year = Int32(year - 1900)
            parts.tm_mon = Int32(month - 1)
            parts.tm_mday = Int32(day)
            #expect(Int(timegm(&parts)) == days * 86_400, "\(days)")
        }
    }

    @Test func parsing_takesExactlyARealDay() {
        #expect(CivilDate.days(parsing: "1970-01-01") == 0)
        #expect(CivilDate.days(parsing: "2020-02-29") == CivilDate.days(year: 2020, month: 2, day: 29))
        #expect(CivilDate.days(parsing: "1969-12-31") == -1)
        for bad in [
            "2021-02-29", "2020-02-30", "2020-04-31", "2020-13-01", "2020-00-10", "2020-01-00", "2020-1-01",
            "2020-01-1 ", "+020-01-01", "2020/01/01", "２０２０-01-01", "", "2020-01-01T00:00",
        ] {
            #expect(CivilDate.days(parsing: bad) == nil, "\(bad)")
        }
    }

    @Test func split_roundsTowardThePast() {
        #expect(CivilDate.split(seconds: 0) == (0, 0))
        #expect(CivilDate.split(seconds: -1) == (-1, 86_399))
        #expect(CivilDate.split(seconds: -86_400) == (-1, 0))
        #expect(CivilDate.split(seconds: 86_401) == (1, 1))
    }
}
