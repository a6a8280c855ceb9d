import FHIRTestSupport
import Foundation
import Testing
import WardCore
import WardRecords
import WardShell

extension ShellFixture {
    /// What the commands run since the last call told the chain they did to records.
    func accesses() -> [RecordAccess] {
        shell.takeSessionEvents().compactMap { event in
            guard case .accessed(let access) = event else { return nil }
            return access
        }
    }
}

/// Each command tells the chain what it did to each record it touched, after it did it: the
/// audit log records these instead of guessing from the typed line.
@Suite struct AccessEventTests {
    @Test func open_isAnOpen_ofTheMRNAsStored() throws {
        let f = try ShellFixture()
        f.run("open m1")
        #expect(f.accesses() == [RecordAccess(.opened, record: "M1", outcome: .ok)])
    }

    @Test func open_ofAnUnknownMRN_failed_namingItAsTyped() throws {
        let f = try ShellFixture()
        #expect(f.run("open X99").result == .failed)
        #expect(f.accesses() == [RecordAccess(.opened, record: "X99", outcome: .failed)])
    }

    @Test func open_inAHomeWithoutRecords_failed() {
        let shell = Shell(output: { _ in })
        shell.signedOn(user: "alice", role: .clinician)
        #expect(shell.run(Line("open M1")) == .failed)
        #expect(shell.takeSessionEvents() == [.accessed(RecordAccess(.opened, record: "M1", outcome: .failed))])
    }

    @Test func open_ofALoadedChart_isAnOpenAgain() throws {
        let f = try ShellFixture()
        f.run("open M1")
        f.run("open M2")
        _ = f.accesses()
        f.run("open m1")
        #expect(f.accesses() == [RecordAccess(.opened, record: "M1", outcome: .ok)])
    }

    @Test func open_restricted_withAReason_breaksTheGlass_thenOpens() throws {
        let f = try ShellFixture()
        f.run("open M3 --reason 'on call, chest pain'")
        #expect(
            f.accesses() == [
                RecordAccess(.brokeGlass, record: "M3", detail: "on call, chest pain", outcome: .ok),
                RecordAccess(.opened, record: "M3", outcome: .ok),
            ]
        )
    }

    @Test func open_restricted_withoutAReason_isDenied_andNothingElse() throws {
        let f = try ShellFixture()
        #expect(f.run("open M3").result == .ask("M3 is restricted. Why do you open it? (recorded; empty to cancel) "))
        #expect(f.accesses().isEmpty, "nothing is done until the question is answered")
        #expect(f.shell.answer(nil) == .failed)
        #expect(f.accesses() == [RecordAccess(.opened, record: "M3", outcome: .denied)])
    }

    @Test func open_ofAnMRNOfAnyLength_namesItExactly() throws {
        let f = try ShellFixture()
        let uuid = "8f3e2a10-5c4b-4d1e-9a7f-2b6c0d9e1f35"
        let bundle = try JSONSerialization.data(withJSONObject: [
            "resourceType": "Bundle", "type": "transaction",
            "entry": [
                Bundles.patient("p9", given: ["Alan"], family: "Turing", mrn: uuid, birthDate: "1912-06-23")
            ],
        ])
        var report = ImportReport()
        try FHIRImporter(store: f.store).importBundle(bundle, file: "uuid.json", into: &report)
        #expect(f.run("open \(uuid.uppercased())").result == .succeeded)
        #expect(f.accesses() == [RecordAccess(.opened, record: uuid, outcome: .ok)])
    }

    @Test func show_isARead_withItsSection() throws {
        let f = try ShellFixture()
        f.run("open M1")
        _ = f.accesses()
        f.run("show")
        f.run("show labs")
        f.run("show notes")
        #expect(
            f.accesses() == [
                RecordAccess(.read, record: "M1", detail: "summary", outcome: .ok),
                RecordAccess(.read, record: "M1", detail: "labs", outcome: .ok),
                RecordAccess(.read, record: "M1", detail: "notes", outcome: .ok),
            ]
        )
    }

    @Test func aClerksShowLabs_isAReadDenied_andTheSummaryARead() throws {
        let f = try ShellFixture(role: .clerk, user: "bob")
        f.run("open M1")
        _ = f.accesses()
        #expect(f.run("show labs").result == .failed)
        f.run("show summary")
        #expect(
            f.accesses() == [
                RecordAccess(.read, record: "M1", detail: "labs", outcome: .denied),
                RecordAccess(.read, record: "M1", detail: "summary", outcome: .ok),
            ]
        )
    }

    @Test func show_withoutAChart_orAnUnknownSection_touchesNoRecord() throws {
        let f = try ShellFixture(role: .clerk, user: "bob")
        #expect(f.run("show labs").result == .failed)
        #expect(f.run("show").result == .missingContext)
        f.run("open M1")
        _ = f.accesses()
        #expect(f.run("show nonsense").result == .failed)
        #expect(f.accesses().isEmpty)
    }

    @Test func note_isAWrite_neverWithItsText() throws {
        let f = try ShellFixture()
        f.run("open M1")
        _ = f.accesses()
        #expect(f.run("note Seen in clinic, stable.").result == .succeeded)
        #expect(
            f.accesses() == [
                RecordAccess(.wrote, record: "M1", outcome: .started), RecordAccess(.wrote, record: "M1", outcome: .ok),
            ]
        )
    }

    @Test func aClerksNote_isAWriteDenied_toTheCurrentChart() throws {
        for role in [Role.clerk, .auditor] {
            let f = try ShellFixture(role: role, user: "bob")
            f.run("note hello")
            #expect(f.accesses().isEmpty, "no chart is open: no record to name")
            f.run("open M2")
            _ = f.accesses()
            #expect(f.run("note hello").result == .failed)
            #expect(f.accesses() == [RecordAccess(.wrote, record: "M2", outcome: .denied)])
        }
    }

    @Test func close_isAClose_andOfAChartNotOpenFailed() throws {
        let f = try ShellFixture()
        f.run("open M1")
        f.run("open M2")
        _ = f.accesses()
        f.run("close m1")
        f.run("close")
        #expect(f.run("close M9").result == .failed)
        #expect(f.run("close").result == .missingContext)
        #expect(
            f.accesses() == [
                RecordAccess(.closed, record: "M1", outcome: .ok),
                RecordAccess(.closed, record: "M2", outcome: .ok),
                RecordAccess(.closed, record: "M9", outcome: .failed),
            ]
        )
    }

    @Test func find_listsEachPatientItShowed_andNothingWhenNoneMatch() throws {
        let f = try ShellFixture()
        f.run("find zzz")
        #expect(f.accesses().isEmpty)
        f.run("find lovelace")
        #expect(f.accesses() == [RecordAccess(.listed, record: "M1", outcome: .ok)])
        f.run("find hopper")
        #expect(f.accesses() == [RecordAccess(.listed, record: "M3", outcome: .ok)])
    }

    /// A search the store could not run (here a closed database; at a site, a dropped
    /// PostgreSQL connection) is one failed `list` naming no record, never what was typed.
    @Test func find_thatFails_isOneFailedList_namingNoRecord() throws {
        let f = try ShellFixture()
        f.store.close()
        #expect(f.run("find lovelace").result == .failed)
        #expect(f.accesses() == [RecordAccess(.listed, record: "", outcome: .failed)])
    }

    @Test func commandsThatTouchNoRecord_sayNothing() throws {
        let f = try ShellFixture()
        f.run("open M1")
        _ = f.accesses()
        for line in ["charts", "whoami", "help", "help open", "lock", "logout", "nonsense", "open"] {
            f.run(line)
        }
        #expect(f.accesses().isEmpty)
    }

    @Test func theEvents_areTakenOnce() throws {
        let f = try ShellFixture()
        f.run("open M1")
        #expect(f.accesses().count == 1)
        #expect(f.accesses().isEmpty)
    }
}
