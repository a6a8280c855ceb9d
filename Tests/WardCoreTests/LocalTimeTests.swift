import Testing
import WardCore

/// Days and times in a named zone, through the C library's zone functions: east and west of
/// Greenwich, across a change of offset, and in several zones at once.
@Suite struct LocalTimeTests {
    private let losAngeles = LocalTime.Zone.named("America/Los_Angeles")
    private let tokyo = LocalTime.Zone.named("Asia/Tokyo")
    /// 2020-05-14T04:20:00Z: 21:20 the day before in Los Angeles (-07:00, daylight time).
    private let shot: Int64 = 1_589_430_000

    @Test func anEveningInLosAngeles_isThatDay_withItsOffset() {
        #expect(LocalTime.day(shot, in: losAngeles) == "2020-05-13")
        #expect(LocalTime.minute(shot, in: losAngeles) == "2020-05-13T21:20-07:00")
        #expect(LocalTime.second(shot, in: losAngeles) == "2020-05-13T21:20:00-07:00")
        #expect(LocalTime.sentence(shot, in: losAngeles) == "May 13, 2020 at 21:20 (UTC-07:00)")
    }

    @Test func theSameInstantInTokyo_isTheNextDay_east() {
        #expect(LocalTime.day(shot, in: tokyo) == "2020-05-14")
        #expect(LocalTime.minute(shot, in: tokyo) == "2020-05-14T13:20+09:00")
        #expect(LocalTime.minute(shot, in: .named("Asia/Kathmandu")) == "2020-05-14T10:05+05:45")
    }

    @Test func utc_writesZ_andTheSentenceSaysUTC() {
        #expect(LocalTime.minute(shot, in: .named("UTC")) == "2020-05-14T04:20Z")
        #expect(LocalTime.sentence(shot, in: .named("UTC")) == "May 14, 2020 at 04:20 (UTC)")
    }

    @Test func winter_andTheChangeToDaylightTime_takeTheirOwnOffsets() {
        // 2020-01-15T20:00:00Z, and 2020-03-08 (02:00 PST became 03:00 PDT) a second either side.
        #expect(LocalTime.minute(1_579_118_400, in: losAngeles) == "2020-01-15T12:00-08:00")
        #expect(LocalTime.second(1_583_661_599, in: losAngeles) == "2020-03-08T01:59:59-08:00")
        #expect(LocalTime.second(1_583_661_600, in: losAngeles) == "2020-03-08T03:00:00-07:00")
    }

    @Test func conversionsInSeveralZonesAtOnce_neverMix() async {
        await withTaskGroup(of: Bool.self) { group in
            for index in 0..<8 {
                group.addTask {
                    let zone = index.isMultiple(of: 2) ? losAngeles : tokyo
                    let expected = index.isMultiple(of: 2) ? "2020-05-13T21:20-07:00" : "2020-05-14T13:20+09:00"
                    return (0..<10).allSatisfy { _ in LocalTime.minute(shot, in: zone) == expected }
                }
            }
            for await consistent in group { #expect(consistent) }
        }
    }

    @Test func zoneNames_areFilesOfTheTzDatabase_andNothingElse() {
        for good in ["America/Los_Angeles", "UTC", "Asia/Kathmandu", "Etc/GMT+8"] {
            #expect(LocalTime.zoneProblem(good) == nil, "\(good)")
        }
        for bad in [
            "Mars/Olympus", "america/los angeles", "", "/etc/passwd", "../../etc/passwd", "America//Denver",
            "America/", "zone.tab", "PST8PDT,M3", "America",
        ] {
            #expect(LocalTime.zoneProblem(bad) != nil, "\(bad)")
        }
    }
}
