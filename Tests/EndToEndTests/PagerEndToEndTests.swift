import Foundation
import Glibc
import Testing

/// Ward's own pager through the real binary in tmux: a chart section taller than the window, a
/// page at a time, its header on every page; the idle lock wiping it; and no pager at all where
/// nobody reads a screen (a batch, `-c`).
@Suite(.serialized) struct PagerEndToEndTests {
    /// `ward demo`'s third patient (seed 1) has some thirty lab results: taller than a 15-row pane.
    static let mrn = "W0000003"
    static let header = "TIME               MEASUREMENT"

    /// Demo records in the harness's home (the shell opens them at the first command), and the
    /// rows `show labs --all` prints in a batch whose output is a file, header first.
    static func addDemoRecords(to t: TerminalHarness) throws -> [String] {
        let (table, _) = try addDemoRecordsAndShowLabsInABatch(to: t)
        return table
    }

    /// The same, with the batch's whole output.
    static func addDemoRecordsAndShowLabsInABatch(to t: TerminalHarness) throws -> (table: [String], output: String) {
        let environment = ["WARD_HOME": t.home.path, "WARD_SITE": t.siteFile.path, "HOME": t.directory.path]
        try TerminalHarness.run(
            TerminalHarness.wardPath,
            ["demo", "--patients", "5", "--no-shell"],
            environment: environment
        )
        #expect(TerminalHarness.lastStatus == 0)
        let password = t.directory.appendingPathComponent("demo-password").path
        try "demo\n".write(toFile: password, atomically: false, encoding: .utf8)
        chmod(password, 0o600)
        let script = t.directory.appendingPathComponent("labs.ward").path
        try "open \(mrn)\nshow labs --all\n".write(toFile: script, atomically: true, encoding: .utf8)
        let output = try TerminalHarness.run(
            TerminalHarness.wardPath,
            ["--batch", script, "--user", "demo", "--password-file", password],
            // The pane's width, so that the batch's table is cut as the shell's is.
            environment: environment.merging(["LANG": "C.UTF-8", "COLUMNS": "100"]) { $1 }
        )
        #expect(TerminalHarness.lastStatus == 0)
        let lines = output.split(separator: "\n").map(String.init)
        guard let start = lines.firstIndex(where: { $0.hasPrefix(header) }) else {
            Issue.record("no labs table in the batch output:\n\(output)")
            throw TerminalHarness.HarnessError.failed("no labs")
        }
        return (Array(lines[start...].prefix { !$0.hasPrefix("Demo data") }), output)
    }

    static func lines(_ screen: String) -> [String] {
        screen.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    @Test func tallSection_isPaged_withItsHeaderOnEveryPage_andSpaceBackSearchAndQ() throws {
        let t = try TerminalHarness(columns: 100, rows: 15)
        let table = try Self.addDemoRecords(to: t)
        let rows = Array(table.dropFirst())
        #expect(rows.count > 25)
        try t.signOn()
        try t.enter("open \(Self.mrn)")
        try t.waitFor(TerminalHarness.chartPrompt(Self.mrn))
        try t.enter("show labs --all")

        let first = try t.waitFor("-- more --")
        var screen = Self.lines(first)
        #expect(screen[0].hasPrefix(Self.header))
        #expect(screen[1] == rows[0])
        #expect(screen.contains { $0.hasPrefix("-- more -- lines 1-14 of \(table.count)") })
        #expect(!first.contains(rows[13]))

        try t.press("Space")
        screen = Self.lines(try t.waitFor("-- more -- lines 15-"))
        #expect(screen[0].hasPrefix(Self.header))  // the header is kept on top
        #expect(screen[1] == rows[13])
        #expect(!screen.contains(rows[0]))

        try t.press("b")
        #expect(try t.waitFor("-- more -- lines 1-14 ") == first)

        // Ctrl-C while a search is typed gives up the search, as at readline's prompt; paging goes on.
        try t.type("/nothing-typed")
        try t.waitFor("/nothing-typed")
        try t.press("C-c")
        #expect(try t.waitFor("-- more -- lines 1-14 ") == first)

        // A row from the last page, found by a search typed after '/': it comes up under the header.
        let wanted = rows[rows.count - 3]
        try t.type("/" + String(wanted.prefix(40)))
        try t.waitFor("/" + String(wanted.prefix(40)))
        try t.press("Enter")
        screen = Self.lines(try t.waitFor(wanted))
        #expect(screen[0].hasPrefix(Self.header))
        #expect(screen.contains { $0.hasPrefix("-- end --") })

        // h shows the keys in place of the page; any key brings the page back.
        try t.press("h")
        try t.waitFor("Keys of the pager:")
        try t.press("Space")
        try t.waitFor("-- end --")

        // q leaves the last page on the normal screen, the prompt under it.
        try t.press("q")
        let back = try t.waitFor(rows[rows.count - 1] + "\nward [")
        #expect(!back.contains("-- more --") && !back.contains("-- end --"))
        #expect(back.contains(wanted) && back.contains(Self.header))
        try t.press("C-d")
        #expect(try t.waitForExit() == 0)
    }

    @Test func idleLock_whilePaging_wipesThePage_fromScreenAndScrollback_andNothingOfItComesBack() throws {
        let t = try TerminalHarness(
            site: """
                [session]
                idle-timeout = "3s"
                warn-before = "1s"

                [[plugin]]
                name = "idle-timer"
                """ + TerminalHarness.unguarded,
            columns: 100,
            rows: 15
        )
        let rows = Array(try Self.addDemoRecords(to: t).dropFirst())
        try t.signOn()
        try t.enter("open \(Self.mrn)")
        try t.waitFor(TerminalHarness.chartPrompt(Self.mrn))
        try t.enter("show labs --all")
        try t.waitFor("-- more --")
        // Paging for longer than the idle timeout, a key every half second: each key passes the
        // chain, and the idle timer sees it. The pauses are the real idle time under test (the
        // binary's clock cannot be injected); each key then waits for the page it turns, so a
        // loaded machine adds only its own lag to a pause, far from the 3 s timeout.
        let start = ContinuousClock.now
        for key in ["Space", "b", "Space", "b", "Space", "b", "Space", "b"] {
            Thread.sleep(forTimeInterval: 0.5)
            try t.press(key)
            try t.waitFor(key == "Space" ? "-- more -- lines 15-" : "-- more -- lines 1-14 ")
        }
        #expect(ContinuousClock.now - start > .seconds(3), "control: paged for longer than the idle timeout")
        #expect(!(try t.screen()).contains("Ward is locked"))
        try t.press("Space")
        try t.waitFor("-- more -- lines 15-")
        try t.waitFor("ward: locking in", timeout: .seconds(5))  // the warning, in the status line
        #expect(Self.lines(try t.screen())[0].hasPrefix(Self.header))
        try t.waitFor("Ward is locked: no activity. Signed on as alice.", timeout: .seconds(5))
        for text in [try t.screen(), try t.screenAndScrollback()] {
            #expect(!text.contains("MEASUREMENT"))
            #expect(!rows.contains { text.contains($0) })
            #expect(!text.contains("-- more --"))
        }
        try t.unlock()
        try t.waitFor("ward")
        let after = try t.screenAndScrollback()
        #expect(!after.contains("MEASUREMENT") && !after.contains("-- more --"))
        #expect(!rows.contains { after.contains($0) })
        #expect(!after.contains("Ward is locked"))
        try t.press("C-d")
        #expect(try t.waitForExit() == 0)
    }

    /// Ctrl-Z while paging clears the page off the screen like any other; `fg` draws it again.
    @Test func ctrlZ_whilePaging_clearsThePage_andFgDrawsItAgain() throws {
        let t = try TerminalHarness(["--version"], columns: 100, rows: 15)
        _ = try t.waitForExit()
        let rows = Array(try Self.addDemoRecords(to: t).dropFirst())
        let shell = try TerminalHarness.runShellPane(t)
        try shell.startWardAndSignOn()
        try shell.type("open \(Self.mrn)")
        try shell.press("Enter")
        try shell.waitFor(TerminalHarness.chartPrompt(Self.mrn))
        try shell.type("show labs --all")
        try shell.press("Enter")
        try shell.waitFor("-- more --")
        try shell.press("Space")
        try shell.waitFor("-- more -- lines 15-")
        try shell.press("C-z")
        try shell.waitFor("Stopped")
        let stopped = try shell.screenAndScrollback()
        #expect(!rows.contains { stopped.contains($0) } && !stopped.contains("MEASUREMENT"))
        try shell.type("fg")
        try shell.press("Enter")
        try shell.waitFor("-- more -- lines 15-")
        #expect(try shell.screen().contains(rows[13]))
        try shell.press("q")
        try shell.waitFor(TerminalHarness.chartPrompt(Self.mrn))
        try shell.press("C-d")
        try shell.waitFor("Signed off.")
    }

    @Test func userFile_pagerFalse_printsTallOutputWhole() throws {
        let config = FileManager.default.temporaryDirectory.appendingPathComponent("ward-config-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: config) }
        try FileManager.default.createDirectory(
            at: config.appendingPathComponent("ward"),
            withIntermediateDirectories: true
        )
        try "[display]\npager = false\n".write(
            to: config.appendingPathComponent("ward/config.toml"),
            atomically: true,
            encoding: .utf8
        )
        let t = try TerminalHarness(environment: ["XDG_CONFIG_HOME": config.path], columns: 100, rows: 15)
        let table = try Self.addDemoRecords(to: t)
        try t.signOn()
        try t.enter("open \(Self.mrn)")
        try t.waitFor(TerminalHarness.chartPrompt(Self.mrn))
        try t.enter("show labs --all")
        let screen = try t.waitFor(table.last!)
        #expect(!screen.contains("-- more --"))
        let all = try t.screenAndScrollback()
        for row in table { #expect(all.components(separatedBy: row).count == 2, "\(row)") }
        try t.press("C-d")
        #expect(try t.waitForExit() == 0)
    }

    @Test func batchThroughAPipe_printsEveryRowOnce_withNoPagerStatusLine() throws {
        let t = try TerminalHarness()
        let (table, output) = try Self.addDemoRecordsAndShowLabsInABatch(to: t)
        #expect(table.count > 25)
        for row in table { #expect(output.components(separatedBy: row + "\n").count == 2, "\(row)") }
        #expect(!output.contains("-- more --") && !output.contains("-- end --"))
    }

    @Test func dashC_onATerminal_isNotPaged() throws {
        let password = FileManager.default.temporaryDirectory.appendingPathComponent("ward-pw-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: password) }
        try "\(TerminalHarness.password)\n".write(to: password, atomically: false, encoding: .utf8)
        chmod(password.path, 0o600)
        // `help` is taller than this pane: a script's output, even on a terminal, is never paged.
        let t = try TerminalHarness(
            ["-c", "help", "--user", TerminalHarness.user, "--password-file", password.path],
            columns: 100,
            rows: 6
        )
        #expect(try t.waitForExit() == 0)
        let all = try t.screenAndScrollback()
        #expect(all.contains("find") && all.contains("logout"))
        #expect(!all.contains("-- more --") && !all.contains("-- end --"))
    }

    /// The wipe proof (`WipeCoreImageTests`) for the pager: a lab row on the page being read and
    /// a search typed in the pager are in memory before the idle lock, and nowhere after it.
    @Test(.enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/gcore")))
    func idleLock_whilePaging_leavesNoRowNorSearchInMemory() throws {
        let t = try TerminalHarness(
            site: """
                [session]
                idle-timeout = "2s"
                warn-before = "0s"

                [[plugin]]
                name = "idle-timer"
                """ + TerminalHarness.unguarded,
            columns: 100,
            rows: 12
        )
        let lab = "Zq" + WipeCoreImageTests.canary().dropFirst(2).prefix(10)
        let search = "Zq" + WipeCoreImageTests.canary().dropFirst(2).prefix(10)
        let bundle = t.directory.appendingPathComponent("labs.json")
        try Data(Self.bundle(mrn: "P0000001", labs: 40, canary: String(lab), at: 30).utf8).write(to: bundle)
        try TerminalHarness.run(
            TerminalHarness.wardPath,
            ["import", bundle.path],
            environment: ["WARD_HOME": t.home.path, "WARD_SITE": t.siteFile.path, "HOME": t.directory.path]
        )
        #expect(TerminalHarness.lastStatus == 0)
        try t.signOn()
        try t.enter("open P0000001")
        try t.waitFor("Opened P0000001")
        try t.enter("show labs --all")
        try t.waitFor("-- more --")
        try t.type("/" + String(lab.prefix(6)))
        try t.press("Enter")
        try t.waitFor(String(lab))
        try t.type("/" + String(search))  // typed, not yet looked for: the pager holds it
        try t.waitFor("/" + String(search))
        let pid = try t.wardPID()
        let core = WipeCoreImageTests()
        let before = try core.coreImage(of: pid, in: t.directory)
        #expect(core.occurrences(of: String(lab), in: before) > 0, "control: the row in memory while paged")
        #expect(core.occurrences(of: String(search), in: before) > 0, "control: the search in memory")

        try t.waitFor("Ward is locked: no activity.", timeout: .seconds(5))
        try t.waitUntilLocked()
        let after = try core.coreImage(of: pid, in: t.directory)
        #expect(core.occurrences(of: String(lab), in: after) == 0)
        #expect(core.occurrences(of: String(search), in: after) == 0)
        #expect(!(try t.screenAndScrollback()).contains(String(lab)))
        try t.press("C-d")
        #expect(try t.waitForExit() == 0)
    }

    /// One patient with `labs` laboratory results a day apart; result `at` is named `canary`.
    static func bundle(mrn: String, labs: Int, canary: String, at: Int) -> String {
        let observations = (0..<labs).map { index in
            let name = index == at ? canary : "Glucose \(index)"
            let day = String(format: "%02d", index % 28 + 1)
            let month = String(format: "%02d", index / 28 + 1)
            return """
                {"fullUrl": "urn:uuid:obs-\(index)", "resource": {"resourceType": "Observation", "id": "obs-\(index)",
                  "status": "final", "category": [{"coding": [{"code": "laboratory"}]}],
                  "code": {"coding": [{"system": "http://loinc.org", "code": "2339-0", "display": "\(name)"}]},
                  "subject": {"reference": "urn:uuid:p1"}, "effectiveDateTime": "2016-\(month)-\(day)T03:04:05-05:00",
                  "valueQuantity": {"value": \(80 + index), "unit": "mg/dL"}}}
                """
        }
        return """
            {"resourceType": "Bundle", "type": "transaction", "entry": [{"fullUrl": "urn:uuid:p1", "resource": {
              "resourceType": "Patient", "id": "p1",
              "name": [{"use": "official", "given": ["Paged"], "family": "Patient"}],
              "birthDate": "1970-01-02", "gender": "female",
              "identifier": [{"type": {"coding": [{"code": "MR"}]}, "value": "\(mrn)"}]}},
            \(observations.joined(separator: ",\n"))]}
            """
    }
}
