import Foundation
import Testing

/// A site file that enables every plugin, the external example included, in the real binary.
@Suite(.serialized) struct EveryPluginEndToEndTests {
    static let examples = CompletionScriptTests.repository.appendingPathComponent("Plugins/Examples")

    @Test func aSiteWithEveryPlugin_runs_andAnExternalDenialIsShownAndAudited() throws {
        let workingHours = Self.examples.appendingPathComponent("working-hours.py").path
        let t = try TerminalHarness(
            site: """
                [session]
                idle-timeout = "5m"
                warn-before = "30s"

                [[plugin]]
                name = "idle-timer"

                [[plugin]]
                name = "audit-log"
                fsync = "interval"

                [[plugin]]
                name = "suspend-guard"
                grace = "15s"

                [[plugin]]
                name = "focus-guard"
                after = "60s"

                [[plugin]]
                name = "external"
                command = ["python3", "\(workingHours)"]
                events = ["line"]
                timeout = "2s"
                settings = { from = "07:00", to = "19:00", now = "sun 03:00" }
                """
        )
        try t.signOn()
        try t.enter("whoami")
        try t.waitFor("alice (clinician)")
        try t.enter("find smith")
        try t.waitFor("ward: Records are closed outside working hours")
        try t.press("C-d")
        #expect(try t.waitForExit() == 0)
        #expect(isCooked(try t.terminalModeAfterExit()))

        let env = ["WARD_HOME": t.home.path, "WARD_SITE": t.siteFile.path, "HOME": t.directory.path]
        let show = try TerminalHarness.run(
            TerminalHarness.wardPath,
            ["audit", "show", "--format", "json"],
            environment: env
        )
        #expect(show.contains("\"kind\":\"denied\""))
        _ = try TerminalHarness.run(TerminalHarness.wardPath, ["audit", "verify"], environment: env)
        #expect(TerminalHarness.lastStatus == 0)
    }

    @Test func aSiteFileWithAnError_stopsWardBeforeSignOn_naming_fileAndLine() throws {
        let site = try Self.siteFile(
            """
            [session]
            idle-timeout = "5 minutes"
            """
        )
        defer { try? FileManager.default.removeItem(at: site.deletingLastPathComponent()) }
        let t = try TerminalHarness(environment: ["WARD_SITE": site.path])
        #expect(try t.waitForExit() == 78)
        try t.waitFor("site.toml:2:")
        #expect(!(try t.screen()).contains("Username:"))
    }
}

extension EveryPluginEndToEndTests {
    @Test func aPluginThatCannotStart_stopsWardBeforeSignOn_with78() throws {
        let site = try Self.siteFile(
            """
            [[plugin]]
            name = "audit-log"
            path = "/nonexistent/ward/audit.jsonl"
            """
        )
        defer { try? FileManager.default.removeItem(at: site.deletingLastPathComponent()) }
        let t = try TerminalHarness(environment: ["WARD_SITE": site.path])
        #expect(try t.waitForExit() == 78)
        try t.waitFor("site.toml:1:")
        #expect(!(try t.screen()).contains("Username:"))
    }
}

extension EveryPluginEndToEndTests {
    /// `text` as `site.toml` in a directory of its own, for Ward to read (`WARD_SITE` in the pane)
    /// while the harness adds alice under its own, valid, site file: `ward user add` refuses
    /// under a site file it cannot read, or whose audit log it cannot write.
    static func siteFile(_ text: String) throws -> URL {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("ward-site-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let site = scratch.appendingPathComponent("site.toml")
        try text.write(to: site, atomically: true, encoding: .utf8)
        return site
    }
}
