import Testing
import WardCore
import WardRecords
import WardShell

@Suite struct WipeTests {
    @Test func wipe_emptiesEveryChart_forgetsThem_andTheBreakGlassReason() throws {
        let f = try ShellFixture()
        f.run("open M1")
        f.run("open M3 --reason 'consult'")
        let loaded = f.shell.charts
        #expect(loaded.count == 2 && f.shell.lastBreakGlass != nil)
        f.shell.wipe()
        #expect(loaded.allSatisfy { $0.isWiped && $0.patient == .empty && $0.observations.isEmpty })
        #expect(f.shell.charts.isEmpty && f.shell.currentMRN == nil && f.shell.lastBreakGlass == nil)
        #expect(f.shell.prompt == "ward> ")
    }

    @Test func wipe_closesTheStore_andSignedOnReopensIt() throws {
        let f = try ShellFixture()
        f.shell.wipe()
        #expect(throws: StoreError.closed) { try f.store.lookUp(mrn: "M1") }
        #expect(f.run("find lovelace").output == "ward: \(StoreError.closed.description)")
        f.shell.signedOn(user: "alice", role: .clinician)
        #expect(try f.store.lookUp(mrn: "M1") != nil)
        #expect(f.run("open M1").result == .succeeded)
    }
}
