import Foundation
import Glibc
import Testing

/// Context back after unlocking: in a pseudo-terminal, the charts open before a lock
/// are open again after the password, with the same current chart; each reopening is on record
/// in the audit log; nothing comes back where the site turns `resume` off, nor in a new session.
@Suite(.serialized) struct ResumeEndToEndTests {
    static let patients = [
        ("Hopper", "1a2b3c4d-0000-4000-8000-000000000001"),
        ("Turing", "8f3e2a10-5c4b-4d1e-9a7f-2b6c0d9e1f35"),
    ]

    /// `patients` (or others) imported into `t`'s home, one bundle each, with its own resource id.
    static func importPatients(_ patients: [(String, String)], into t: TerminalHarness) throws {
        let environment = ["WARD_HOME": t.home.path, "WARD_SITE": t.siteFile.path, "HOME": t.directory.path]
        for (index, (family, mrn)) in patients.enumerated() {
            let file = t.directory.appendingPathComponent("\(family).json")
            let bundle = WipeCoreImageTests.bundle(family: family, mrn: mrn)
                .replacingOccurrences(of: "\"p1\"", with: "\"p\(index + 1)\"")
                .replacingOccurrences(of: "urn:uuid:p1", with: "urn:uuid:p\(index + 1)")
            try Data(bundle.utf8).write(to: file)
            let imported = try TerminalHarness.runToEnd(
                ["import", file.path],
                environment: environment,
                capturingIn: t.directory
            )
            #expect(imported.status == 0, "\(String(decoding: imported.err, as: UTF8.self))")
        }
    }

    /// Opens both patients, then the first again, so the first is current (and the second was
    /// opened last: a resume that made the last one current would show).
    static func openBoth(_ t: TerminalHarness) throws {
        let (hopper, turing) = (patients[0].1, patients[1].1)
        try t.enter("open \(hopper)")
        try t.waitFor(TerminalHarness.chartPrompt(hopper))
        try t.enter("open \(turing)")
        try t.waitFor(TerminalHarness.chartPrompt(turing))
        try t.enter("open \(hopper)")
        try t.waitFor("(Hopper, Canary) was open; read again, it is the current chart.")
        try t.waitFor(TerminalHarness.chartPrompt(hopper))
    }

    /// The rows of `charts` on screen, spaces squeezed.
    static func chartRows(_ t: TerminalHarness) throws -> [String] {
        try t.screen().split(separator: "\n").map { $0.split(separator: " ").joined(separator: " ") }
    }

    @Test func afterLockAndPassword_bothChartsAreOpen_theSameOneIsCurrent_andTheReopeningIsAudited() throws {
        let t = try TerminalHarness(
            site: "[[plugin]]\nname = \"audit-log\"\n" + TerminalHarness.unguarded,
            columns: 120,
            rows: 40
        )
        try Self.importPatients(Self.patients, into: t)
        let (hopper, turing) = (Self.patients[0].1, Self.patients[1].1)
        try t.signOn()
        try Self.openBoth(t)

        try t.enter("lock")
        try t.waitFor("Password for alice:")
        #expect(!(try t.screenAndScrollback()).contains(hopper))
        try t.enter(TerminalHarness.password)
        try t.waitFor("Back as before the lock: 2 charts open; the current chart is \(hopper) (Hopper, Canary).")
        try t.waitFor(TerminalHarness.chartPrompt(hopper))
        try t.enter("charts")
        try t.waitFor("Turing, Canary")
        let rows = try Self.chartRows(t)
        #expect(rows.contains("* \(hopper) Hopper, Canary 1970-01-02"))
        #expect(rows.contains("\(turing) Turing, Canary 1970-01-02"))
        try t.enter("show")  // the current chart's data, loaded again
        try t.waitFor("Name            Hopper, Canary")
        try t.waitFor("Sex             female")
        try t.waitFor(TerminalHarness.chartPrompt(hopper), after: "Sex             female")  // show has ended
        try t.press("C-d")
        #expect(try t.waitForExit() == 0)

        let environment = ["WARD_HOME": t.home.path, "WARD_SITE": t.siteFile.path, "HOME": t.directory.path]
        let show = try TerminalHarness.run(
            TerminalHarness.wardPath,
            ["audit", "show", "--format", "json"],
            environment: environment
        )
        let records = show.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let session = records.drop { $0["kind"] as? String != "sign-on" }
        let summary = session.map { record in
            [record["kind"], record["action"], record["mrn"], record["how"], record["outcome"]]
                .compactMap { $0 as? String }
                .joined(separator: " ")
        }
        // The reopening comes right after the unlock, before any command: one `open` each, in
        // the order they were first opened.
        let unlock = try #require(summary.firstIndex(of: "unlock"))
        #expect(
            Array(summary[unlock...].prefix(3)) == [
                "unlock", "access open \(hopper) resume ok", "access open \(turing) resume ok",
            ],
            "\(summary)"
        )
        let verify = try TerminalHarness.run(TerminalHarness.wardPath, ["audit", "verify"], environment: environment)
        #expect(TerminalHarness.lastStatus == 0, "\(verify)")
    }

    @Test func aSiteWithResumeFalse_reopensNothing() throws {
        let t = try TerminalHarness(
            site: "plugin = []\n\n[session]\nresume = false\n" + TerminalHarness.unguarded,
            columns: 120,
            rows: 40
        )
        try Self.importPatients(Self.patients, into: t)
        try t.signOn()
        try Self.openBoth(t)
        try t.enter("lock")
        try t.waitFor("Password for alice:")
        try t.enter(TerminalHarness.password)
        try t.waitFor("ward>")
        try t.enter("charts")
        try t.waitFor("No chart is open. Open one with 'open MRN'.")
        #expect(!(try t.screen()).contains("Back as before the lock"))
        try t.press("C-d")
        #expect(try t.waitForExit() == 0)
    }

    @Test func afterSignOffAndSignOnAgain_nothingIsReopened() throws {
        let t = try TerminalHarness(columns: 120, rows: 40)
        try Self.importPatients(Self.patients, into: t)
        try t.signOn()
        try Self.openBoth(t)
        try t.enter("lock")
        try t.waitFor("Password for alice:")
        try t.press("C-d")  // signs off at the lock screen
        #expect(try t.waitForExit() == 0)

        let again = try TerminalHarness(["--home", t.home.path, "--site", t.siteFile.path], columns: 120, rows: 40)
        try again.signOn()
        try again.enter("charts")
        try again.waitFor("No chart is open. Open one with 'open MRN'.")
        try again.enter("lock")
        try again.waitFor("Password for alice:")
        try again.enter(TerminalHarness.password)
        try again.waitFor("ward>")
        try again.enter("charts")
        try again.waitFor("No chart is open. Open one with 'open MRN'.")
        #expect(!(try again.screenAndScrollback()).contains("Back as before the lock"))
        try again.press("C-d")
        #expect(try again.waitForExit() == 0)
    }

    /// The password changed while the session was locked (`ward user passwd` elsewhere): the new
    /// one unlocks, but the list sealed under the old one does not open. It is forgotten, the
    /// user told, and the unlock goes on.
    @Test func aPasswordChangedWhileLocked_unlocks_butTheChartsAreNotReopened_andTheUserIsTold() throws {
        let t = try TerminalHarness(columns: 140, rows: 40)
        try Self.importPatients(Self.patients, into: t)
        try t.signOn()
        try Self.openBoth(t)
        try t.enter("lock")
        try t.waitFor("Password for alice:")
        let environment = ["WARD_HOME": t.home.path, "WARD_SITE": t.siteFile.path, "HOME": t.directory.path]
        try TerminalHarness.run(
            TerminalHarness.wardPath,
            ["user", "passwd", TerminalHarness.user, "--password-stdin"],
            environment: environment,
            input: "battery staple\n"
        )
        #expect(TerminalHarness.lastStatus == 0)
        try t.enter("battery staple")
        try t.waitFor("The charts open before the lock were not reopened: their sealed list did not open.")
        try t.waitFor("ward>")
        try t.enter("charts")
        try t.waitFor("No chart is open. Open one with 'open MRN'.")
        try t.press("C-d")
        #expect(try t.waitForExit() == 0)
    }

    /// Breaking the glass takes a reason each time: a restricted chart is not reopened, and the
    /// user is told how to open it again; the other chart comes back.
    @Test func aRestrictedChart_isNotReopened_andTheUserIsTold() throws {
        let t = try TerminalHarness(columns: 140, rows: 40)
        try Self.importPatients([Self.patients[0]], into: t)
        let restricted = t.directory.appendingPathComponent("restricted.json")
        let bundle = WipeCoreImageTests.bundle(family: "Lovelace", mrn: "R0000001", restricted: true)
            .replacingOccurrences(of: "\"p1\"", with: "\"p9\"")
            .replacingOccurrences(of: "urn:uuid:p1", with: "urn:uuid:p9")
        try Data(bundle.utf8).write(to: restricted)
        let environment = ["WARD_HOME": t.home.path, "WARD_SITE": t.siteFile.path, "HOME": t.directory.path]
        #expect(
            try TerminalHarness.runToEnd(
                ["import", restricted.path],
                environment: environment,
                capturingIn: t.directory
            ).status == 0
        )
        try t.signOn()
        try t.enter("open \(Self.patients[0].1)")
        try t.waitFor(TerminalHarness.chartPrompt(Self.patients[0].1))
        try t.enter("open R0000001 --reason 'on call'")
        try t.waitFor("R0000001]>")
        try t.enter("lock")
        try t.waitFor("Password for alice:")
        try t.enter(TerminalHarness.password)
        try t.waitFor("R0000001 was not reopened: it is restricted")
        try t.waitFor(
            "Back as before the lock: 1 chart open; the current chart is \(Self.patients[0].1) (\(Self.patients[0].0), Canary)."
        )
        try t.waitFor(TerminalHarness.chartPrompt(Self.patients[0].1))
        try t.press("C-d")
        #expect(try t.waitForExit() == 0)
    }
}

/// The wipe proof, extended to resume: while locked, neither an open chart's patient name nor
/// its MRN is anywhere in a core image of the process (the list is sealed); after the password,
/// `charts` lists both again.
@Suite(.serialized, .enabled(if: getuid() == 0)) struct ResumeCoreImageTests {
    @Test func afterALock_theOpenChartsNamesAndMRNsAreNowhereInMemory_andAfterUnlockingTheyAreBack() throws {
        #expect(
            FileManager.default.isExecutableFile(atPath: "/usr/bin/gcore"),
            "gcore is missing: install the Debian package gdb"
        )
        let t = try TerminalHarness(columns: 160, rows: 40)
        let core = WipeCoreImageTests()
        let patients = (0..<2).map { _ in
            (
                "Zq" + String(WipeCoreImageTests.canary().dropFirst(2).prefix(10)),
                UUID().uuidString.lowercased()
            )
        }
        try ResumeEndToEndTests.importPatients(patients, into: t)
        try t.signOn()
        for (_, mrn) in patients {
            try t.enter("open \(mrn)")
            try t.waitFor(TerminalHarness.chartPrompt(mrn))
        }
        try t.enter("charts")
        try t.waitFor(patients[1].0)
        let pid = try t.wardPID()

        let before = try core.coreImage(of: pid, in: t.directory)
        for (family, mrn) in patients {
            #expect(core.occurrences(of: family, in: before) > 0, "control: the name is in memory before the lock")
            #expect(core.occurrences(of: mrn, in: before) > 0, "control: the MRN is in memory before the lock")
        }

        try t.enter("lock")
        try t.waitFor("Password for alice:")
        try t.waitUntilLocked()
        let after = try core.coreImage(of: pid, in: t.directory)
        for (family, mrn) in patients {
            #expect(core.occurrences(of: family, in: after) == 0, "a name after the lock")
            #expect(core.occurrences(of: mrn, in: after) == 0, "an MRN in plaintext after the lock")
        }
        // The list as the shell hands it over to be sealed: its MRNs back to back.
        #expect(core.occurrences(of: patients[0].1 + "\0\0\0$" + patients[1].1, in: after) == 0)
        #expect(!(try t.screenAndScrollback()).contains(patients[0].1))

        try t.enter(TerminalHarness.password)
        try t.waitFor(
            "Back as before the lock: 2 charts open; the current chart is \(patients[1].1) (\(patients[1].0), Canary)."
        )
        try t.enter("charts")
        try t.waitFor("\(patients[0].0), Canary")
        #expect(try t.screen().contains("\(patients[1].0), Canary"))
        try t.press("C-d")
        #expect(try t.waitForExit() == 0)
    }
}

/// A batch that stalls past the idle timeout signs on again from its password file before its
/// next line: the same rules as at a terminal, so the chart it had open is open again, and
/// what the session says of it goes to standard error, not among the results.
@Suite struct BatchResumeEndToEndTests {
    @Test func aBatchLockedWhileIdle_hasItsChartBack_afterSigningOnAgain() throws {
        let h = try BatchHome(site: BatchLockAndSignalTests.quickIdleSite, patients: 20)
        let p = try h.start(["--batch", "-", "--user", "demo", "--password-file", h.passwordFile])
        p.send("open W0000011")
        try p.waitFor("Opened W0000011")
        try p.waitFor("locked (idle) after <stdin>:1", inError: true, timeout: .seconds(5))
        p.send("show")
        p.closeInput()
        #expect(try p.waitForExit() == 0)
        #expect(p.standardError.contains("signed on again from \(h.passwordFile) before <stdin>:2"))
        #expect(p.standardError.contains("Back as before the lock: 1 chart open; the current chart is W0000011."))
        #expect(p.standardOutput.contains("Name            Alvarez, Brandon"))
        let kinds = try h.auditRecords().compactMap { $0["kind"] as? String }
        #expect(
            kinds == ["sign-on", "command", "access", "lock", "unlock", "access", "command", "access", "sign-off"]
        )
        #expect(try h.verifyAudit() == 0)
    }
}
