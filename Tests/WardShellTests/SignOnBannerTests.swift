import FHIRTestSupport
import Foundation
import Testing
import WardCore
import WardRecords
import WardShell

/// The line that says what a home holds, at sign-on: counted once a process, shown again at each
/// unlock without counting (a count reads a whole index: tens of milliseconds at a million
/// patients, on the server for PostgreSQL, at every terminal's unlock).
@Suite struct SignOnBannerTests {
    @Test func theBanner_isCountedAtTheFirstSignOn_andShownAgainAfterALock_withoutCounting() throws {
        let f = try ShellFixture(role: nil)
        let count = try f.store.patientCount()
        f.shell.signedOn(user: "alice", role: .clinician)
        #expect(f.lines == ["This Ward home holds \(count) patients."])

        // Another Ward adds a patient while this one is locked: the unlock shows what the
        // sign-on counted, without reading the index again.
        var report = ImportReport()
        try FHIRImporter(store: f.store).importBundle(
            Bundles.bundle([Bundles.patient("p-new", given: ["Grace"], family: "Hopper", mrn: "M-NEW")]),
            file: "new.json",
            into: &report
        )
        #expect(try f.store.patientCount() == count + 1)
        f.shell.wipe()
        f.lines = []
        f.shell.signedOn(user: "alice", role: .clinician)
        #expect(f.lines == ["This Ward home holds \(count) patients."])
    }
}
