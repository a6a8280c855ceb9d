import Foundation
import Glibc
import Testing

/// Batch mode under the lock and signal rules: a stalled pipe, SIGTERM and SIGHUP, a long script,
/// and many batches writing one audit log at once.
@Suite(.serialized) struct BatchLockAndSignalTests {
    /// An idle timeout of one second, so a pipe that waits two seconds stalls past it.
    static let quickIdleSite = """
        [session]
        idle-timeout = "1s"
        warn-before = "0s"

        [[plugin]]
        name = "idle-timer"

        [[plugin]]
        name = "audit-log"
        """

    @Test func aStalledPipe_locks_wipes_andTheNextLineRunsAfterSigningOnAgainFromTheFile() throws {
        // Without resume, so that nothing reopens the chart (ResumeEndToEndTests: with it).
        let h = try BatchHome(
            site: Self.quickIdleSite.replacingOccurrences(of: "[session]", with: "[session]\nresume = false")
        )
        let p = try h.start([
            "--batch", "-", "--user", "demo", "--password-file", h.passwordFile, "--on-error", "continue",
        ])
        p.send("open W0000011")
        try p.waitFor("Opened W0000011")
        try p.waitFor("locked (idle) after <stdin>:1", inError: true, timeout: .seconds(5))
        // The chart opened before the lock is gone; the line sent during the lock runs after sign-on.
        p.send("charts", "open W0000011", "show")
        p.closeInput()
        #expect(try p.waitForExit() == 0)
        #expect(p.standardError.contains("signed on again from \(h.passwordFile) before <stdin>:2"))
        #expect(p.standardOutput.contains("No chart is open. Open one with 'open MRN'."))
        #expect(p.standardOutput.contains("Name            Alvarez, Brandon"))
        let kinds = try h.auditRecords().compactMap { $0["kind"] as? String }
        // The `charts` sent during the lock ran with no chart open: it touched no record.
        #expect(
            kinds == [
                "sign-on", "command", "access", "lock", "unlock", "command", "command", "access", "command", "access",
                "sign-off",
            ]
        )
        #expect(try h.auditRecords().first { $0["kind"] as? String == "lock" }?["cause"] as? String == "idle")
        #expect(try h.verifyAudit() == 0)
    }

    @Test func aStalledPipe_withThePasswordOnADescriptor_exits75_namingTheLine_andRunsNothingMore() throws {
        let h = try BatchHome(site: Self.quickIdleSite)
        let p = try h.start(["--user", "demo", "--password-fd", "3"], passwordOnDescriptor3: "demo\n")
        p.send("open W0000011")
        #expect(try p.waitForExit(timeout: .seconds(10)) == 75)
        p.send("show")  // too late: nobody reads it
        #expect(p.standardError.contains("descriptor 3, which cannot be read again; stopped after <stdin>:1"))
        let records = try h.auditRecords()
        #expect(records.compactMap { $0["kind"] as? String } == ["sign-on", "command", "access", "lock", "sign-off"])
        #expect(records.last?["how"] as? String == "timeout")
    }

    @Test(arguments: [(SIGTERM, Int32(143), "terminate"), (SIGHUP, Int32(129), "hangup")])
    func aSignal_betweenCommands_endsTheBatch_withTheAuditLogComplete(signal: Int32, status: Int32, how: String) throws
    {
        let h = try BatchHome()
        let p = try h.start(["--user", "demo", "--password-file", h.passwordFile])
        p.send("open W0000011")
        try p.waitFor("Opened W0000011")
        kill(p.pid, signal)
        #expect(try p.waitForExit() == status)
        p.send("show")
        let records = try h.auditRecords()
        #expect(
            records.compactMap { $0["kind"] as? String } == ["sign-on", "command", "access", "signal", "sign-off"]
        )
        #expect(records.last?["how"] as? String == how)
        #expect(p.standardError.contains("stopped after <stdin>:1"))
        #expect(try h.verifyAudit() == 0)
    }

    /// A SIGTERM that arrives while a line is held up (here by a site plugin that takes
    /// 20 s) ends Ward within a second: the wait is given up, the line is refused and not run, and
    /// the audit log holds its record, the refusal, the signal and the sign-off.
    @Test func aSIGTERM_duringASlowPlugin_endsWithinASecond_withoutRunningTheLine() throws {
        let (h, marker, cleanUp) = try SlowPlugin.batchHome()
        defer { cleanUp() }
        let p = try h.start(["--user", "demo", "--password-file", h.passwordFile])
        p.send("find slowpoke")
        try SlowPlugin.waitFor(marker)
        let sent = ContinuousClock.now
        kill(p.pid, SIGTERM)
        p.send("whoami")
        #expect(try p.waitForExit(timeout: .seconds(5)) == 143, "\(p.standardError)")
        #expect(ContinuousClock.now - sent < .seconds(3))
        #expect(!p.standardOutput.contains("No patient matches"))
        #expect(!p.standardOutput.contains("demo (clinician)"))
        let records = try h.auditRecords()
        #expect(records.compactMap { $0["kind"] as? String } == ["sign-on", "command", "denied", "signal", "sign-off"])
        #expect((records[2]["reason"] as? String)?.contains("abandoned") == true)
        #expect(records.last?["how"] as? String == "terminate")
        #expect(try h.verifyAudit() == 0)
    }

    @Test func aTenThousandLineScript_runsEveryLine_asOneJSONObjectEach() throws {
        let h = try BatchHome(
            site: "[[plugin]]\nname = \"audit-log\"\nfsync = \"interval\"\n" + TerminalHarness.unguarded
        )
        let commands = ["find alvarez", "open W0000011", "show vitals", "charts", "close"]
        let lines = (0..<10_000).map { commands[$0 % commands.count] }
        let script = try h.script(lines)
        let p = try h.start([
            "--batch", script, "--user", "demo", "--password-file", h.passwordFile, "--format", "json",
        ])
        p.closeInput()
        #expect(try p.waitForExit(timeout: .seconds(300)) == 0)
        let output = p.standardOutput.split(separator: "\n")
        #expect(output.count == 10_000)
        #expect(output.last?.contains("\"line\":10000") == true)
        #expect(!output.contains { !$0.contains("\"status\":\"ok\"") })
        let records = try h.auditRecords()
        #expect(records.filter { $0["kind"] as? String == "command" }.count == 10_000)
        #expect(try h.verifyAudit() == 0)
    }

    /// Several Ward processes append to one audit file, and the chain stays valid.
    @Test func eightConcurrentBatches_appendToOneAuditLog_andTheChainStaysIntact() throws {
        let h = try BatchHome()
        let lines = (0..<100).map { $0 % 2 == 0 ? "find alvarez" : "open W0000011" }
        let script = try h.script(lines)
        let processes = try (0..<8).map { _ in
            try h.start(["--batch", script, "--user", "demo", "--password-file", h.passwordFile])
        }
        for p in processes {
            p.closeInput()
            #expect(try p.waitForExit(timeout: .seconds(120)) == 0)
        }
        let records = try h.auditRecords()
        // Each process: sign-on, 100 lines, an access for each (`find alvarez` lists one
        // patient, `open` opens one), sign-off.
        #expect(records.count == 8 * (2 + 100 + 100))
        #expect(records.filter { $0["kind"] as? String == "access" }.count == 8 * 100)
        #expect(Set(records.compactMap { $0["session"] as? String }).count == 8)
        // After `ward demo`'s own records (`demo`, `user-add`), the numbers run on without a gap.
        let first = (try h.allAuditRecords().count) - records.count + 1
        #expect(records.compactMap { $0["seq"] as? Int } == Array(first..<(first + 8 * 202)))
        #expect(try h.verifyAudit() == 0)
    }
}
