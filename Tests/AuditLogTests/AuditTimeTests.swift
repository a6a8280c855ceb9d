import AuditLog
import Testing

/// The times an auditor writes: each read as the instant meant, or refused, never misread.
@Suite struct AuditTimeTests {
    /// 2026-11-27T15:00:00Z.
    let now: Int64 = 1_795_791_600_000

    @Test func anOffset_isReadAsThatInstant_notAsSeconds() {
        let fifteenThirtyThree = UTCTimestamp.parse("2026-11-27T15:33")
        #expect(AuditTime.parse("2026-11-27T10:33-05:00", now: now) == fifteenThirtyThree)
        #expect(AuditTime.parse("2026-11-27T10:33-0500", now: now) == fifteenThirtyThree)
        #expect(AuditTime.parse("2026-11-27T21:03+05:30", now: now) == fifteenThirtyThree)
        #expect(AuditTime.parse("2026-11-27T15:33Z", now: now) == fifteenThirtyThree)
        #expect(AuditTime.parse("2026-11-27T15:33:05-00:00", now: now) == fifteenThirtyThree.map { $0 + 5000 })
    }

    @Test func durations_today_andYesterday_countBackFromNow() {
        let day: Int64 = 86_400_000
        #expect(AuditTime.parse("30d", now: now) == now - 30 * day)
        #expect(AuditTime.parse("12h", now: now) == now - 12 * 3_600_000)
        #expect(AuditTime.parse("1d12h", now: now) == now - 36 * 3_600_000)
        #expect(AuditTime.parse("today", now: now) == UTCTimestamp.parse("2026-11-27"))
        #expect(AuditTime.parse("yesterday", now: now) == UTCTimestamp.parse("2026-11-26"))
    }

    @Test(arguments: ["2026-11-27T10:33-5", "2026-11-27T10:33-25:00", "last week", "30", "d30", "2026-13-01", "today "])
    func anythingElse_isRefused(_ text: String) {
        #expect(AuditTime.parse(text, now: now) == nil)
    }

    @Test func mrns_resolveWhole_byTheirOnlyPrefix_orNotAtAll() {
        let known: Set<String> = ["w0000011", "w0000012", "475d72ca-9b2e"]
        #expect(AuditFilter.resolve("W0000011", among: known) == .mrn("w0000011"))
        #expect(AuditFilter.resolve("475D", among: known) == .mrn("475d72ca-9b2e"))
        #expect(AuditFilter.resolve("w00000", among: known) == .ambiguous(["w0000011", "w0000012"]))
        #expect(AuditFilter.resolve("x", among: known) == .unknown)
    }
}
