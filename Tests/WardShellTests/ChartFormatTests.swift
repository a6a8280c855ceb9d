import Foundation
import Glibc
import Testing
import WardCore
import WardRecords

@testable import WardShell

/// The days and times a chart shows, and JSON's instants: in the site's zone with the offset,
/// a FHIR date without a time as its own day in every zone, computed without ICU.
@Suite struct ChartFormatTests {
    private let utc = LocalTime.Zone.named("UTC")
    private let losAngeles = LocalTime.Zone.named("America/Los_Angeles")
    private let tokyo = LocalTime.Zone.named("Asia/Tokyo")

    /// What the C library writes for the same instant in UTC (`gmtime_r`, `strftime`).
    private func reference(_ seconds: Int64, _ format: String) -> String {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        var buffer = [CChar](repeating: 0, count: 64)
        let count = strftime(&buffer, buffer.count, format, &parts)
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    @Test func timesAndDays_inUTC_readAsTheCLibraryWritesThem() {
        var generator = SystemRandomNumberGenerator()
        // 1900 to 2100, both sides of 1970, and the edges of days and leap years.
        var samples: [Int64] = [-1, 86_399, 86_401, -86_401, 951_782_401, 4_107_542_399]
        for _ in 0..<20_000 { samples.append(Int64.random(in: -2_208_988_800..<4_107_542_400, using: &generator)) }
        for seconds in samples where seconds % 86_400 != 0 {
            let date = Date(timeIntervalSince1970: TimeInterval(seconds))
            #expect(ChartFormat.time(date, in: utc) == reference(seconds, "%Y-%m-%dT%H:%MZ"), "\(seconds)")
            #expect(ChartFormat.day(date, in: utc) == reference(seconds, "%Y-%m-%d"), "\(seconds)")
            #expect(ChartFormat.instant(date, in: utc) == reference(seconds, "%Y-%m-%dT%H:%M:%SZ"), "\(seconds)")
        }
    }

    /// JSON's instants in UTC are the bytes `Date.ISO8601FormatStyle` writes.
    @Test func instantsInUTC_areWhatTheISO8601FormatStyleWrites() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let seconds = Int64.random(in: -2_208_988_800..<4_107_542_400, using: &generator)
            guard seconds % 86_400 != 0 else { continue }
            let date = Date(timeIntervalSince1970: TimeInterval(seconds))
            #expect(ChartFormat.instant(date, in: utc) == date.formatted(.iso8601), "\(seconds)")
        }
    }

    /// A shot given 2020-05-13 21:20 at -07:00 (04:20 the next day in UTC).
    @Test func anEveningShotWest_isThatEveningsDay_withTheOffset() {
        let shot = Date(timeIntervalSince1970: 1_589_430_000)
        #expect(ChartFormat.day(shot, in: losAngeles) == "2020-05-13")
        #expect(ChartFormat.time(shot, in: losAngeles) == "2020-05-13T21:20-07:00")
        #expect(ChartFormat.instant(shot, in: losAngeles) == "2020-05-13T21:20:00-07:00")
        #expect(ChartFormat.day(shot, in: tokyo) == "2020-05-14")
        #expect(ChartFormat.time(shot, in: tokyo) == "2020-05-14T13:20+09:00")
    }

    /// A FHIR `date` without a time (kept as the day's first instant in UTC) is that day in
    /// every zone, and has no time to show.
    @Test func aDateWithoutATime_isThatDay_eastAndWest() {
        let day = Date(timeIntervalSince1970: TimeInterval(CivilDate.days(year: 2015, month: 12, day: 21) * 86_400))
        for zone in [utc, losAngeles, tokyo, LocalTime.Zone.named("Pacific/Kiritimati")] {
            #expect(ChartFormat.day(day, in: zone) == "2015-12-21", "\(zone)")
            #expect(ChartFormat.time(day, in: zone) == "2015-12-21", "\(zone)")
            #expect(ChartFormat.instant(day, in: zone) == "2015-12-21", "\(zone)")
        }
    }

    @Test func aTimeWithinAMinute_isThatMinute_beforeAndAfter1970() {
        #expect(ChartFormat.time(Date(timeIntervalSince1970: 59.9), in: utc) == "1970-01-01T00:00Z")
        #expect(ChartFormat.time(Date(timeIntervalSince1970: -0.5), in: utc) == "1969-12-31T23:59Z")
        #expect(ChartFormat.day(Date(timeIntervalSince1970: -0.5), in: utc) == "1969-12-31")
    }

    @Test func ucumUnits_readAsPeopleWriteThem_andOthersAsWritten() {
        #expect(ChartFormat.unit("Cel") == "°C")
        #expect(ChartFormat.unit("[degF]") == "°F")
        #expect(ChartFormat.unit("mm[Hg]") == "mmHg")
        #expect(ChartFormat.unit("kg/m2") == "kg/m²")
        for unit in ["mg/dL", "%", "/min", "kg", "cm", "{score}", ""] { #expect(ChartFormat.unit(unit) == unit) }
        #expect(
            ChartFormat.result(ReportResult(name: "Body temperature", value: 37.25, unit: "Cel"))
                == "Body temperature: 37.25 °C"
        )
        #expect(
            ChartFormat.result(ReportResult(name: "SARS-CoV-2 RNA", text: "Detected")) == "SARS-CoV-2 RNA: Detected"
        )
        #expect(ChartFormat.result("Glucose") == "Glucose")
    }

    @Test func age_inYearsMonthsOrDays_onTheDayGiven_andNoneForAnUnknownBirthDate() {
        func on(_ day: String) -> Date {
            Date(timeIntervalSince1970: TimeInterval(CivilDate.days(parsing: day)! * 86_400 + 43_200))
        }
        #expect(ChartFormat.age(birthDate: "1980-02-29", on: on("2026-02-28")) == "45 years")
        #expect(ChartFormat.age(birthDate: "1980-02-29", on: on("2026-03-01")) == "46 years")
        #expect(ChartFormat.age(birthDate: "2025-01-15", on: on("2026-11-14")) == "21 months")
        #expect(ChartFormat.age(birthDate: "2026-10-14", on: on("2026-11-14")) == "1 month")
        #expect(ChartFormat.age(birthDate: "2026-11-01", on: on("2026-11-14")) == "13 days")
        #expect(ChartFormat.age(birthDate: "1970", on: on("2026-11-14")) == "about 56 years")
        #expect(ChartFormat.age(birthDate: "2026-05", on: on("2026-11-14")) == "about 6 months")
        for unknown in ["", "(unknown)", "2027-01-01", "1970-13-01", "-1970"] {
            #expect(ChartFormat.age(birthDate: unknown, on: on("2026-11-14")) == "", "\(unknown)")
        }
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
