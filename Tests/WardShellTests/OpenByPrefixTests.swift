import FHIRTestSupport
import Foundation
import Testing
import WardCore
import WardRecords
import WardShell

extension ShellFixture {
    /// Adds patients with UUID MRNs, as real exports have: two share their first eight
    /// characters, one does not.
    func addUUIDPatients() throws {
        var report = ImportReport()
        try FHIRImporter(store: store).importBundle(
            Bundles.bundle([
                Bundles.patient(
                    "u1",
                    given: ["Mary"],
                    family: "Seacole",
                    mrn: Self.uniqueUUID,
                    birthDate: "1805-11-23"
                ),
                Bundles.patient("u2", given: ["Florence"], family: "Nightingale", mrn: Self.twinUUIDs[0]),
                Bundles.patient("u3", given: ["Edith"], family: "Cavell", mrn: Self.twinUUIDs[1]),
            ]),
            file: "uuids.json",
            into: &report
        )
    }

    static let uniqueUUID = "8f3e2a10-4b7c-4d2e-9a61-0c5d7e8f9a0b"
    static let twinUUIDs = ["5c1d9e22-0a1b-4c2d-8e3f-112233445566", "5c1d9e22-ffee-4ddc-bbaa-998877665544"]
}

/// `open` by the start of an MRN and by a row of the last `find`.
@Suite struct OpenByPrefixTests {
    @Test func prefix_ofOneMRN_opensIt_andTheAccessNamesTheWholeMRN() throws {
        let f = try ShellFixture()
        try f.addUUIDPatients()
        _ = f.accesses()
        let (result, output) = f.run("open 8f3e2a10")
        #expect(result == .succeeded)
        #expect(output.contains("Opened \(ShellFixture.uniqueUUID): Seacole, Mary, born 1805-11-23"))
        #expect(f.shell.currentMRN == ShellFixture.uniqueUUID)
        #expect(f.accesses() == [RecordAccess(.opened, record: ShellFixture.uniqueUUID, outcome: .ok)])
    }

    @Test func prefix_ignoresASCIICase_asMRNsAreCompared() throws {
        let f = try ShellFixture()
        try f.addUUIDPatients()
        #expect(f.run("open 8F3E2A10").result == .succeeded)
        #expect(f.shell.currentMRN == ShellFixture.uniqueUUID)
    }

    @Test func prefix_ofSeveralMRNs_listsThem_numbered_andOpensNothing() throws {
        let f = try ShellFixture()
        try f.addUUIDPatients()
        _ = f.accesses()
        let (result, output) = f.run("open 5c1d9e22")
        #expect(result == .failed)
        #expect(f.shell.charts.isEmpty && f.shell.currentMRN == nil)
        #expect(output.contains(ShellFixture.twinUUIDs[0]) && output.contains("Nightingale"))
        #expect(output.contains(ShellFixture.twinUUIDs[1]) && output.contains("Cavell"))
        #expect(output.contains("several MRNs start with '5c1d9e22'; nothing was opened."))
        #expect(
            f.accesses() == ShellFixture.twinUUIDs.map { RecordAccess(.listed, record: $0, outcome: .ok) }
        )
        // The candidates are the rows `open N` picks from.
        #expect(f.run("open 2").result == .succeeded)
        #expect(f.shell.currentMRN == ShellFixture.twinUUIDs[1])
    }

    @Test func prefix_ofSeveralMRNs_countsThoseNotListed() throws {
        let f = try ShellFixture()
        var report = ImportReport()
        let patients = (0..<12).map { i in
            Bundles.patient("x\(i)", given: ["P"], family: "X", mrn: String(format: "abcd1234-%04d", i))
        }
        try FHIRImporter(store: f.store).importBundle(Bundles.bundle(patients), file: "x.json", into: &report)
        let output = f.run("open abcd1234").output
        #expect(output.contains("abcd1234-0009") && !output.contains("abcd1234-0010"))
        #expect(output.contains("And 2 more."))
    }

    @Test func prefix_ofNoMRN_isTheNoSuchMRNFailure_namingWhatWasTyped() throws {
        let f = try ShellFixture()
        try f.addUUIDPatients()
        _ = f.accesses()
        let (result, output) = f.run("open 0000ffff")
        #expect(result == .failed)
        #expect(output.contains("no patient has the MRN '0000ffff'"))
        #expect(f.accesses() == [RecordAccess(.opened, record: "0000ffff", outcome: .failed)])
    }

    @Test func exactMRN_winsOverLongerOnesItStarts() throws {
        let f = try ShellFixture()
        var report = ImportReport()
        try FHIRImporter(store: f.store).importBundle(
            Bundles.bundle([
                Bundles.patient("a", given: ["A"], family: "Short", mrn: "Q77"),
                Bundles.patient("b", given: ["B"], family: "Long", mrn: "Q770"),
            ]),
            file: "q.json",
            into: &report
        )
        #expect(f.run("open q77").result == .succeeded)
        #expect(f.shell.currentMRN == "Q77")
    }

    @Test func hexPrefix_withoutDigits_isNotTakenForAName() throws {
        let f = try ShellFixture()
        let (_, output) = f.run("open abcdefab")
        #expect(output.contains("no patient has the MRN 'abcdefab'"))
        #expect(f.run("open ada").output.contains("no patient has the MRN 'ada'. To search by name, use 'find ada'."))
    }

    @Test func row_opensThatRowOfTheLastFind_withTheWholeMRN() throws {
        let f = try ShellFixture()
        try f.addUUIDPatients()
        f.run("find mary")
        #expect(f.shell.lastFindRows == [ShellFixture.uniqueUUID])
        _ = f.accesses()
        #expect(f.run("open 1").result == .succeeded)
        #expect(f.shell.currentMRN == ShellFixture.uniqueUUID)
        #expect(f.accesses() == [RecordAccess(.opened, record: ShellFixture.uniqueUUID, outcome: .ok)])
        #expect(f.run("open #1").output.contains("was open; read again, it is the current chart."))
    }

    @Test func find_numbersItsRows() throws {
        let f = try ShellFixture()
        let output = f.run("find lovelace").output
        let lines = output.split(separator: "\n")
        #expect(lines.first?.hasPrefix("#") == true && lines.first?.contains("MRN") == true)
        #expect(lines.dropFirst().first(where: { $0.contains("M1") })?.hasPrefix("1 ") == true)
    }

    @Test func row_withoutAFind_orOutOfRange_failsSaying() throws {
        let f = try ShellFixture()
        let none = f.run("open 2")
        #expect(none.result == .failed && none.output.contains("no 'find' has listed patients"))
        f.run("find lovelace")
        let out = f.run("open 3")
        #expect(out.result == .failed && out.output.contains("the last 'find' listed 1 row; there is no row 3."))
        #expect(f.run("open #0").output.contains("is not a row number"))
        #expect(f.shell.charts.isEmpty)
        #expect(f.accesses().allSatisfy { $0.action == .listed })
    }

    @Test func tab_completesMRNsOfTheLastFind_andOpenCharts() throws {
        let f = try ShellFixture()
        try f.addUUIDPatients()
        f.run("open M2")
        f.run("find nightingale")
        #expect(f.shell.completions(for: "", before: "open ") == [ShellFixture.twinUUIDs[0], "M2"])
        #expect(f.shell.completions(for: "5c", before: "open ") == [ShellFixture.twinUUIDs[0]])
        #expect(f.shell.completions(for: "", before: "close ") == ["M2"])
    }

    @Test func wipe_forgetsTheRowsOfTheLastFind() throws {
        let f = try ShellFixture()
        f.run("find lovelace")
        #expect(f.shell.lastFindRows == ["M1"])
        f.shell.wipe()
        #expect(f.shell.lastFindRows.isEmpty)
        f.shell.signedOn(user: "alice", role: .clinician)
        #expect(f.run("open 1").output.contains("no 'find' has listed patients"))
        #expect(f.shell.completions(for: "", before: "open ").isEmpty)
    }
}
