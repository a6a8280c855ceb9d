import Foundation
import Testing
import WardCore
import WardRecords

@testable import WardShell

/// The shell's part of resuming after an unlock: what it gives the session to seal, and how it
/// reopens the charts from it, each as `open` would.
@Suite struct ResumeTests {
    /// The shell locks (its context taken first, as the session does) and is signed on again.
    func lockAndUnlock(_ f: ShellFixture) -> [UInt8]? {
        let context = f.shell.resumableContext()
        f.shell.wipe()
        f.shell.signedOn(user: "alice", role: .clinician)
        _ = f.shell.takeSessionEvents()
        f.lines = []
        return context
    }

    @Test func theOpenCharts_andTheCurrentOne_areBackAfterAnUnlock_eachOpenedAndNotedAgain() throws {
        let f = try ShellFixture()
        f.run("open M1")
        f.run("open M2")
        f.run("open M1")  // the current chart again
        let context = try #require(lockAndUnlock(f))
        #expect(f.shell.charts.isEmpty)
        f.shell.resume(from: context)
        #expect(f.shell.charts.map(\.mrn) == ["M1", "M2"])
        #expect(f.shell.currentMRN == "M1")
        #expect(f.shell.charts.allSatisfy { !$0.isWiped })
        #expect(
            f.shell.takeSessionEvents() == [
                .accessed(RecordAccess(.opened, record: "M1", detail: RecordAccess.resumed, outcome: .ok)),
                .accessed(RecordAccess(.opened, record: "M2", detail: RecordAccess.resumed, outcome: .ok)),
            ]
        )
        // At a terminal both identifiers; a batch writes this line on standard error, with the MRN alone.
        #expect(f.lines == ["Back as before the lock: 2 charts open; the current chart is M1 (Lovelace, Ada Augusta)."])
    }

    @Test func nothingOpen_givesNothingToSeal() throws {
        let f = try ShellFixture()
        #expect(f.shell.resumableContext() == nil)
        f.run("open M1")
        f.run("close")
        #expect(f.shell.resumableContext() == nil)
    }

    @Test func aRestrictedChart_isNotReopened_andTheUserIsToldHow() throws {
        let f = try ShellFixture()
        f.run("open M1")
        f.run("open M3 --reason 'on call'")
        let context = try #require(lockAndUnlock(f))
        f.shell.resume(from: context)
        #expect(f.shell.charts.map(\.mrn) == ["M1"])
        #expect(f.shell.currentMRN == "M1", "the current chart was not reopened: the last one reopened is current")
        #expect(
            f.shell.takeSessionEvents() == [
                .accessed(RecordAccess(.opened, record: "M1", detail: RecordAccess.resumed, outcome: .ok))
            ]
        )
        #expect(f.shell.lastBreakGlass == nil)
        #expect(
            f.lines.contains(
                "M3 was not reopened: it is restricted, and opening it takes a reason each time. "
                    + "Open it again with: open M3 --reason \"…\""
            )
        )
    }

    @Test func aChartThatIsGone_isNotReopened_andTheOthersAre() throws {
        let f = try ShellFixture()
        let context = ResumeContext(mrns: ["M9", "M2"], current: "M9").encoded()
        f.shell.resume(from: context)
        #expect(f.shell.charts.map(\.mrn) == ["M2"])
        #expect(f.shell.currentMRN == "M2")
        #expect(
            f.shell.takeSessionEvents() == [
                .accessed(RecordAccess(.opened, record: "M9", detail: RecordAccess.resumed, outcome: .failed)),
                .accessed(RecordAccess(.opened, record: "M2", detail: RecordAccess.resumed, outcome: .ok)),
            ]
        )
        #expect(f.lines.contains("M9 was not reopened: no patient has that MRN any more."))
    }

    @Test func aDamagedContext_opensNothing_andSaysSo() throws {
        let f = try ShellFixture()
        var context = ResumeContext(mrns: ["M1"], current: "M1").encoded()
        context.removeLast()
        f.shell.resume(from: context)
        #expect(f.shell.charts.isEmpty)
        #expect(
            f.lines == [
                "The charts open before the lock were not reopened: their list did not read back. Open them again."
            ]
        )
    }

    @Test func aSealThatDidNotOpen_opensNothing_andSaysSo() throws {
        let f = try ShellFixture()
        f.shell.resume(from: nil)
        #expect(f.shell.charts.isEmpty && f.shell.takeSessionEvents().isEmpty)
        #expect(
            f.lines == [
                "The charts open before the lock were not reopened: their sealed list did not open. Open them again."
            ]
        )
    }

    @Test func theContext_readsBackWhatWasWritten_andNothingElse() {
        let saved = ResumeContext(mrns: ["8f3e2a10-5c4b-4d1e-9a7f-2b6c0d9e1f35", "a\nb", "é"], current: "a\nb")
        #expect(ResumeContext(decoding: saved.encoded()) == saved)
        #expect(
            ResumeContext(decoding: ResumeContext(mrns: [], current: nil).encoded())
                == ResumeContext(mrns: [], current: nil)
        )
        #expect(ResumeContext(decoding: []) == nil)
        #expect(ResumeContext(decoding: [0, 0, 0, 2, 0, 0, 0, 1, 0x41]) == nil, "the current index is past the list")
        #expect(ResumeContext(decoding: [0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0x41]) == nil, "a length past the end")
        #expect(ResumeContext(decoding: [0, 0, 0, 0, 0, 0, 0, 1, 0xff]) == nil, "not UTF-8")
    }
}
