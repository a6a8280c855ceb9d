import FHIRTestSupport
import Foundation
import PostgresTestSupport
import Testing

/// The clinical core on real-looking data, with the real binary: a command acts only on the
/// chart the user last opened, text is kept as typed, and every imported patient can be found
/// and opened. The bundle holds O'Brien (a UUID MRN), Søndergaard, a letters-only MRN, a patient
/// with neither name nor birth date, and two Zabriskies told apart by birth date.
@Suite(.serialized) struct ClinicalCoreEndToEndTests {
    static let obrien = "475d72ca-9b2e-4c1e-8a57-0123456789ab"

    static var bundle: Data {
        Bundles.bundle([
            Bundles.patient("p-obrien", given: ["Siobhán"], family: "O'Brien", mrn: obrien),
            Bundles.patient("p-sond", given: ["Mette"], family: "Søndergaard", mrn: "S0000001"),
            Bundles.patient("p-letters", given: ["Lettie"], family: "Letterman", mrn: "MRNABC"),
            [
                "fullUrl": "urn:uuid:p-noname",
                "resource": [
                    "resourceType": "Patient", "id": "p-noname",
                    "identifier": [
                        ["type": ["coding": [["code": "MR"]]], "value": "NONAME1"]
                    ],
                ] as [String: Any],
            ],
            Bundles.patient("p-smith1", given: ["John"], family: "Zabriskie", mrn: "SM0001", birthDate: "1989-10-26"),
            Bundles.patient("p-smith2", given: ["Jane"], family: "Zabriskie", mrn: "SM0002", birthDate: "1990-01-01"),
            Bundles.patient("p-vip", given: ["Vera"], family: "Important", mrn: "VIP0001", restricted: true),
        ])
    }

    /// A demo home with the bundle imported into it.
    static func home() throws -> BatchHome {
        let h = try BatchHome(patients: 20)
        let file = h.directory.appendingPathComponent("clinical.json")
        try bundle.write(to: file)
        let imported = try TerminalHarness.runToEnd(
            ["import", file.path],
            environment: h.environment,
            capturingIn: h.directory
        )
        #expect(imported.status == 0, "\(String(decoding: imported.err, as: UTF8.self))")
        return h
    }

    /// A terminal, 140 columns wide, whose home holds the bundle, imported through `ward import`
    /// under `site` (the records may be on PostgreSQL, migrated already).
    static func terminal(site: String = "plugin = []\n" + TerminalHarness.unguarded) throws -> TerminalHarness {
        let t = try TerminalHarness(site: site, columns: 140, rows: 30)
        let file = t.directory.appendingPathComponent("clinical.json")
        try bundle.write(to: file)
        let environment = ["WARD_HOME": t.home.path, "WARD_SITE": t.siteFile.path, "HOME": t.directory.path]
        let imported = try TerminalHarness.runToEnd(
            ["import", file.path],
            environment: environment,
            capturingIn: t.directory
        )
        #expect(imported.status == 0, "\(String(decoding: imported.err, as: UTF8.self))")
        return t
    }

    /// Runs `lines` as a batch (`--on-error continue`) and returns the process, ended.
    static func batch(_ h: BatchHome, _ lines: [String], format: String = "text") throws -> (Int32, BatchProcess) {
        let script = try h.script(lines, name: "s-\(UUID().uuidString).ward")
        let p = try h.start([
            "--batch", script, "--user", "demo", "--password-file", h.passwordFile, "--on-error", "continue",
            "--format", format,
        ])
        return (try p.waitForExit(timeout: .seconds(30)), p)
    }

    /// The notes the batch's user (`demo`) wrote, read with the sqlite3 shell: the demo's own
    /// notes are signed by others.
    static func notes(_ h: BatchHome) throws -> String {
        try TerminalHarness.run(
            "/usr/bin/sqlite3",
            ["\(h.home)/records.sqlite", "SELECT text FROM note WHERE author = 'demo' ORDER BY id"],
            environment: [:]
        )
    }

    static let failedOpens = [
        "open W9999999", "open W00000", "open VIP0001", "open #9", "open 'W0000002",
    ]

    @Test(arguments: failedOpens)
    func aFailedOpen_inABatch_stopsTheNextNote_withExit65_andNothingIsWritten(_ failing: String) throws {
        let h = try Self.home()
        let (status, p) = try Self.batch(h, ["open S0000001", failing, "note Meant for the second patient.", "show"])
        #expect(status == 65, "\(p.standardError)")
        #expect(p.standardError.contains(":3: no chart is current (1 chart is open: 'charts' lists them)."))
        #expect(!p.standardOutput.contains("Note added"))
        #expect(try Self.notes(h).isEmpty)
        #expect(try h.auditRecords().filter { $0["action"] as? String == "write" }.isEmpty)
        #expect(try h.verifyAudit() == 0)
    }

    @Test func closingTheCurrentChart_inABatch_leavesNoneCurrent() throws {
        let h = try Self.home()
        let (status, p) = try Self.batch(h, ["open SM0001", "open SM0002", "close", "note For Jane?"])
        #expect(status == 65)
        #expect(p.standardOutput.contains("Closed SM0002 (Zabriskie, Jane). No chart is current"))
        #expect(try Self.notes(h).isEmpty)
    }

    @Test func notes_areKeptAsTyped_oneLineAndSeveral_andConfirmedByMRNAndName() throws {
        let h = try Self.home()
        let one = #"Mother's fever since Tuesday; Dx "viral URI"  \ r/o strep"#
        let (status, p) = try Self.batch(
            h,
            [
                "open \(Self.obrien)", "note \(one)", "note", "Seen in clinic.", "", "# not a comment here", ".",
                "show notes",
            ]
        )
        #expect(status == 0, "\(p.standardError)")
        #expect(p.standardOutput.contains("Note added to \(Self.obrien) (O'Brien, Siobhán) at "))
        #expect(try Self.notes(h) == one + "\nSeen in clinic.\n\n# not a comment here\n")
    }

    @Test func everyImportedPatient_canBeFound_andOpened() throws {
        let h = try Self.home()
        let (status, p) = try Self.batch(
            h,
            [
                "find o'brien", "find obrien", #"find "o'brien""#, "find sondergaard", "find MRNABC",
                "open MRNABC", "open NONAME1", "find zabriskie 1989", "find zabriskie 1989-10-26", "find zabriskie,ja",
                "find sondergard", "find lettermna", "charts",
            ],
            format: "json"
        )
        #expect(status == 0, "\(p.standardError)")
        let objects = p.standardOutput.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        func mrns(_ index: Int) -> [String] {
            ((objects[index]["rows"] as? [[String: Any]]) ?? []).compactMap { $0["mrn"] as? String }
        }
        #expect(objects.count == 13)
        for index in 0..<3 { #expect(mrns(index) == [Self.obrien], "\(index)") }
        #expect(mrns(3) == ["S0000001"])
        #expect(mrns(4) == ["MRNABC"])
        #expect(mrns(7) == ["SM0001"] && mrns(8) == ["SM0001"] && mrns(9) == ["SM0002"])
        #expect(mrns(10) == ["S0000001"] && mrns(11) == ["MRNABC"])
        #expect((objects[10]["messages"] as? [String])?.contains("No exact match; close matches:") == true)
        #expect(mrns(12) == ["MRNABC", "NONAME1"])
    }

    @Test func atTheTerminal_thePromptNamesTheChartTwice_andAFailedOpenLeavesNone() throws {
        let t = try ClinicalCoreEndToEndTests.terminal()
        try t.signOn()
        try t.enter("find o'brien")
        try t.waitFor("O'Brien, Siobhán")
        try t.enter("open 1")
        try t.waitFor("ward [O'Brien 475d72ca-9b…]>")
        try t.enter("open W9999999")
        try t.waitFor("no patient has the MRN 'W9999999'")
        try t.waitFor("\nward>")
        try t.enter("note Meant for O'Brien?")
        try t.waitFor("no chart is current (1 chart is open: 'charts' lists them).")
        try t.enter("open \(Self.obrien)")
        try t.waitFor("(O'Brien, Siobhán) was open; read again, it is the current chart.")
        try t.enter("note")
        try t.waitFor("a line holding only '.' ends it")
        try t.waitFor("note>")
        try t.enter("Line one, Mother's words.")
        try t.enter(".")
        try t.waitFor("Note added to \(Self.obrien) (O'Brien, Siobhán) at ")
        // Tab lists the MRNs the last find showed, each with its patient's name.
        try t.enter("find zabriskie")
        try t.waitFor("Zabriskie, Jane")
        try t.type("open SM000")
        try t.press("Tab")
        try t.press("Tab")
        try t.waitFor("SM0001  Zabriskie, John")
        try t.waitFor("SM0002  Zabriskie, Jane")
        try t.press("C-u")
        try t.press("C-d")
        #expect(try t.waitForExit() == 0)
    }
}

extension ClinicalCoreEndToEndTests {
    /// A lock while a note of several lines is typed: nothing of it is saved, the user is told so
    /// after signing on again, and what is typed next is a command again, at the prompt that
    /// names the chart.
    @Test func aLockWhileANoteIsTyped_savesNothing_andSaysSo() throws {
        let site = """
            [session]
            idle-timeout = "2s"
            warn-before = "0s"

            [[plugin]]
            name = "idle-timer"
            """ + TerminalHarness.unguarded
        let t = try ClinicalCoreEndToEndTests.terminal(site: site)
        try t.signOn()
        try t.enter("open S0000001")
        try t.waitFor("ward [Søndergaard S0000001]>")
        try t.enter("note")
        try t.waitFor("note>")
        try t.enter("Half a note, then the clinician walks away.")
        try t.waitFor("Password for alice:", timeout: .seconds(10))
        try t.enter(TerminalHarness.password)
        try t.waitFor("The note you were typing when the session locked was not saved; type it again.")
        try t.waitFor("ward [Søndergaard S0000001]>")
        try t.press("C-d")
        #expect(try t.waitForExit() == 0)
        let notes = try TerminalHarness.run(
            "/usr/bin/sqlite3",
            ["\(t.home.path)/records.sqlite", "SELECT count(*) FROM note"],
            environment: [:]
        )
        #expect(notes == "0\n")
    }
}

/// The same rules with the records on PostgreSQL 15: a failed `open`, a server error among
/// them, leaves no chart current, and the note meant for the second patient lands nowhere.
@Suite(.serialized) struct ClinicalCorePostgresEndToEndTests {
    /// A demo home whose site names a fresh database holding the clinical bundle.
    static func home(_ server: PostgresServer) throws -> (BatchHome, String) {
        let database = try server.createDatabase("records")
        let socket = server.socketDirectory.replacingOccurrences(of: "/", with: "%2F")
        let h = try BatchHome(patients: 5)
        let url = "postgresql://\(server.user)@\(socket):\(server.port)/\(database)"
        try
            "[[plugin]]\nname = \"audit-log\"\n\n[records]\nbackend = \"postgresql\"\nurl = \"\(url)\"\n\(TerminalHarness.unguarded)"
            .write(toFile: h.site, atomically: true, encoding: .utf8)
        _ = try TerminalHarness.run(TerminalHarness.wardPath, ["db", "migrate"], environment: h.environment)
        #expect(TerminalHarness.lastStatus == 0)
        try h.shareUsers(server, database)
        let file = h.directory.appendingPathComponent("clinical.json")
        try ClinicalCoreEndToEndTests.bundle.write(to: file)
        let imported = try TerminalHarness.runToEnd(
            ["import", file.path],
            environment: h.environment,
            capturingIn: h.directory
        )
        #expect(imported.status == 0, "\(String(decoding: imported.err, as: UTF8.self))")
        return (h, database)
    }

    @Test func everyFailedOpen_leavesNoChartCurrent_andTheNoteLandsNowhere() throws {
        let server = try PostgresServer.shared()
        let (h, database) = try Self.home(server)
        for failing in ClinicalCoreEndToEndTests.failedOpens + ["find o'brien\nopen 9"] {
            let (status, p) = try ClinicalCoreEndToEndTests.batch(
                h,
                ["open S0000001"] + failing.split(separator: "\n").map(String.init) + [
                    "note Meant for another patient."
                ]
            )
            #expect(status == 65, "\(failing): \(p.standardError)")
            #expect(p.standardError.contains("no chart is current"), "\(failing)")
        }
        #expect(try server.psql("SELECT count(*) FROM note", database: database) == "0\n")
        let (status, p) = try ClinicalCoreEndToEndTests.batch(
            h,
            ["find sondergaard", "find o'brien", "find obrien", "open MRNABC", "open NONAME1"]
        )
        #expect(status == 0, "\(p.standardError)")
        #expect(p.standardOutput.contains("S0000001") && p.standardOutput.contains(ClinicalCoreEndToEndTests.obrien))
        #expect(p.standardOutput.contains("Opened NONAME1: (no name), born (unknown)"))
    }

    /// The records server fails the second `open` (its table is gone for the moment): no chart
    /// is current, and once the server is whole again the note still goes nowhere.
    @Test func aServerError_duringOpen_leavesNoChartCurrent() throws {
        let server = try PostgresServer.shared()
        let (h, database) = try Self.home(server)
        let p = try h.start([
            "--batch", "-", "--user", "demo", "--password-file", h.passwordFile, "--on-error", "continue",
        ])
        p.send("open S0000001")
        try p.waitFor("Opened S0000001")
        try server.psql("ALTER TABLE patient RENAME TO patient_away", database: database)
        p.send("open SM0001")
        try p.waitFor("<stdin>:2:", inError: true)
        try server.psql("ALTER TABLE patient_away RENAME TO patient", database: database)
        p.send("note Meant for Zabriskie, John.")
        p.closeInput()
        #expect(try p.waitForExit(timeout: .seconds(30)) == 65)
        #expect(p.standardError.contains("<stdin>:3: no chart is current"))
        #expect(try server.psql("SELECT count(*) FROM note", database: database) == "0\n")
        #expect(try h.auditRecords().filter { $0["action"] as? String == "write" }.isEmpty)
    }

    /// At the terminal, on PostgreSQL: the prompt names the chart twice; a failed `open` leaves
    /// none current, and the note goes nowhere.
    @Test func atTheTerminal_aFailedOpenLeavesNoChartCurrent() throws {
        let server = try PostgresServer.shared()
        let database = try server.createDatabase("records")
        let socket = server.socketDirectory.replacingOccurrences(of: "/", with: "%2F")
        let site =
            "plugin = []\n\n[records]\nbackend = \"postgresql\"\n"
            + "url = \"postgresql://\(server.user)@\(socket):\(server.port)/\(database)\"\n"
            + TerminalHarness.unguarded
        try PostgresRecordsEndToEndTests.migrate(site: site)
        let t = try ClinicalCoreEndToEndTests.terminal(site: site)
        try t.signOn()
        try t.enter("open S0000001")
        try t.waitFor("ward [Søndergaard S0000001]>")
        try t.enter("open SM")
        try t.waitFor("several MRNs start with 'SM'; nothing was opened.")
        try t.waitFor("\nward>")
        try t.enter("note Meant for a Zabriskie.")
        try t.waitFor("no chart is current (1 chart is open: 'charts' lists them).")
        try t.press("C-d")
        #expect(try t.waitForExit() == 0)
        #expect(try server.psql("SELECT count(*) FROM note", database: database) == "0\n")
    }
}
