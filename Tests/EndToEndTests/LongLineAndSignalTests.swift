import Foundation
import Glibc
import Testing

/// A site plugin that holds every line with "slow" in it for 20 s, after leaving a mark.
enum SlowPlugin {
    static func script(marker: String) throws -> String {
        let examples = EveryPluginEndToEndTests.examples.path
        let plugin = """
            import sys, time
            sys.path.insert(0, '\(examples)')
            from ward_plugin import run
            def decide(event, settings):
                if 'slow' in event.get('text', ''):
                    open('\(marker)', 'w').close()
                    time.sleep(20)
            run(decide)
            """
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("ward-slow-\(UUID().uuidString).py")
            .path
        try plugin.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static func site(script: String) -> String {
        """
        [[plugin]]
        name = "audit-log"

        [[plugin]]
        name = "external"
        command = ["python3", "\(script)"]
        events = ["line"]
        timeout = "30s"
        """ + TerminalHarness.unguarded
    }

    static func batchHome() throws -> (BatchHome, marker: String, cleanUp: () -> Void) {
        let marker = FileManager.default.temporaryDirectory.appendingPathComponent("ward-slow-\(UUID().uuidString)")
            .path
        let script = try script(marker: marker)
        let home = try BatchHome(site: site(script: script))
        return (
            home, marker,
            {
                unlink(marker)
                unlink(script)
            }
        )
    }

    static func waitFor(_ marker: String) throws {
        try eventually("the slow plugin to get the line") { FileManager.default.fileExists(atPath: marker) }
    }
}

/// Lines up to 1 MiB run; longer ones are refused; SIGTERM is obeyed within a second.
@Suite struct LongLineAndSignalTests {
    @Test func aNoteOfAMebibyte_inABatch_isSaved() throws {
        let h = try BatchHome()
        let words = String(repeating: "stable ", count: ((1 << 20) - 16) / 7)
        let script = try h.script(["open W0000011", "note " + words, "show notes --all"])
        let p = try h.start(["--batch", script, "--user", "demo", "--password-file", h.passwordFile])
        p.closeInput()
        #expect(try p.waitForExit(timeout: .seconds(120)) == 0, "\(p.standardError)")
        #expect(p.standardOutput.contains("Note added to W0000011"))
        #expect(p.standardOutput.components(separatedBy: "stable").count > 100_000)
        #expect(try h.verifyAudit() == 0)
    }

    @Test func aLineLongerThanAMebibyte_stopsTheBatch_with65_namingTheLine() throws {
        let h = try BatchHome()
        let script = try h.script(["find alvarez", "note " + String(repeating: "x", count: 1 << 20), "whoami"])
        let p = try h.start(["--batch", script, "--user", "demo", "--password-file", h.passwordFile])
        p.closeInput()
        #expect(try p.waitForExit(timeout: .seconds(60)) == 65)
        #expect(
            p.standardError.contains(
                "ward: \(script):2: the line is longer than 1 MiB (1048576 bytes), the most Ward takes; it was not run."
            )
        )
        #expect(p.standardOutput.contains("Alvarez"))
        #expect(!p.standardOutput.contains("demo (clinician)"))
        let records = try h.auditRecords()
        // `find` left one `list` access per patient it showed; the long line one denial, naming
        // its command and nothing more of it, as at a terminal.
        #expect(
            records.compactMap { $0["kind"] as? String }.filter { $0 != "access" } == [
                "sign-on", "command", "denied", "sign-off",
            ]
        )
        let denial = records.first { $0["kind"] as? String == "denied" }
        #expect(denial?["command"] as? String == "note")
        #expect(denial?["source"] as? String == "batch:\(script):2")
        #expect((denial?["reason"] as? String)?.hasPrefix("the line is longer than 1 MiB") == true)
        let accesses = records.filter { $0["kind"] as? String == "access" }
        #expect(!accesses.isEmpty && accesses.allSatisfy { $0["action"] as? String == "list" })
        #expect(records.last?["how"] as? String == "line-too-long")
        #expect(try h.verifyAudit() == 0)
    }

    @Test func anEndlessLineOnAPipe_isRefused_withoutWaitingForItsEnd() throws {
        let h = try BatchHome()
        let p = try h.start(["--user", "demo", "--password-file", h.passwordFile])
        let chunk = String(repeating: "y", count: 65_536)
        p.send("whoami")
        for _ in 0..<20 { p.sendRaw(chunk) }
        #expect(try p.waitForExit(timeout: .seconds(30)) == 65)
        #expect(p.standardError.contains("<stdin>:2: the line is longer than 1 MiB"))
        #expect(p.standardOutput.contains("demo (clinician)"))
    }

    /// In the terminal: SIGTERM while a line waits on a 20 s plugin ends Ward at once, with the
    /// terminal cooked again and the signal in the audit log.
    @Test func aSIGTERM_whileALineWaits_endsTheShellWithinASecond_andRestoresTheTerminal() throws {
        let marker = FileManager.default.temporaryDirectory.appendingPathComponent("ward-slow-\(UUID().uuidString)")
            .path
        let script = try SlowPlugin.script(marker: marker)
        defer {
            unlink(marker)
            unlink(script)
        }
        let t = try TerminalHarness(site: SlowPlugin.site(script: script))
        try t.signOn()
        try t.enter("find slowpoke")
        try SlowPlugin.waitFor(marker)
        let sent = ContinuousClock.now
        kill(try t.wardPID(), SIGTERM)
        #expect(try t.waitForExit(timeout: .seconds(5)) == 143)
        #expect(ContinuousClock.now - sent < .seconds(3))
        #expect(isCooked(try t.terminalModeAfterExit()))
        let env = ["WARD_HOME": t.home.path, "WARD_SITE": t.siteFile.path, "HOME": t.directory.path]
        let show = try TerminalHarness.run(
            TerminalHarness.wardPath,
            ["audit", "show", "--format", "json"],
            environment: env
        )
        #expect(show.contains("\"kind\":\"signal\"") && show.contains("\"signal\":\"SIGTERM\""), "\(show)")
        #expect(show.contains("\"how\":\"terminate\""))
        _ = try TerminalHarness.run(TerminalHarness.wardPath, ["audit", "verify"], environment: env)
        #expect(TerminalHarness.lastStatus == 0)
    }

    /// At the prompt: a paste past the limit is refused with a message (bracketed, or not: then
    /// the rest of the line up to Enter is dropped too); the line after it works.
    @Test func aPasteLongerThanTheLimit_atThePrompt_isRefused_andNothingRuns() throws {
        let t = try TerminalHarness()
        try t.signOn()
        let file = t.directory.appendingPathComponent("paste.txt")
        try ("note " + String(repeating: "z", count: (1 << 20) + 10)).write(to: file, atomically: true, encoding: .utf8)
        _ = try t.tmux(["load-buffer", file.path])
        _ = try t.tmux(["paste-buffer", "-p"])
        try t.waitFor("the line is longer than 1 MiB", timeout: .seconds(30))
        try t.press("Enter")
        try t.enter("whoami")
        try t.waitFor("alice (clinician)", timeout: .seconds(5))
        try t.press("C-d")
        #expect(try t.waitForExit() == 0)
    }

    /// At the prompt: a paste of 300 KB (not bracketed: plain keys) is taken whole; `help` with
    /// it as an argument fails as it should, with the prompt back. The message quotes the whole
    /// word, thousands of rows, so it comes in the pager: G shows its end, q the prompt.
    @Test func aLongUnbracketedPaste_atThePrompt_isTakenWhole() throws {
        let t = try TerminalHarness()
        try t.signOn()
        let file = t.directory.appendingPathComponent("paste.txt")
        try ("help " + String(repeating: "q", count: 300_000)).write(to: file, atomically: true, encoding: .utf8)
        _ = try t.tmux(["load-buffer", file.path])
        _ = try t.tmux(["paste-buffer"])
        try t.press("Enter")
        try t.waitFor("-- more --", timeout: .seconds(60))
        try t.press("G")
        try t.waitFor("qqq'. Type 'help' for the list.", timeout: .seconds(10))
        try t.press("q")
        try t.waitFor("ward>")
        try t.press("C-d")
        #expect(try t.waitForExit() == 0)
    }
}
