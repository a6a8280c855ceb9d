import Foundation
import Glibc
import Testing

/// `fsync = "always"` in the real binary, watched with strace (Debian `strace`): one
/// `fdatasync` of the audit log a command, whatever the command does, and a record's text on
/// standard output only after its access record was written and synced. And fail closed: an
/// access the audit log cannot write leaves the chart off standard output.
@Suite(.serialized) struct OneSyncEndToEndTests {
    static let site = "[[plugin]]\nname = \"audit-log\"\nfsync = \"always\"\n" + TerminalHarness.unguarded
    static let strace = "/usr/bin/strace"

    /// A missing strace fails the test naming its Debian package, never skips it.
    static func requireStrace() -> Bool {
        guard access(strace, X_OK) == 0 else {
            Issue.record("strace is missing: install the Debian package strace (scripts/install-deps).")
            return false
        }
        return true
    }

    /// Runs `lines` as a batch under strace; the trace's lines (fdatasync and write calls, each
    /// descriptor named by its path).
    static func traced(_ h: BatchHome, _ lines: [String], name: String) throws -> [String] {
        let script = try h.script(lines, name: name + ".ward")
        let trace = h.directory.appendingPathComponent(name + ".trace").path
        _ = try TerminalHarness.run(
            strace,
            [
                "-f", "-y", "-s", "512", "-e", "trace=fdatasync,write", "-o", trace,
                TerminalHarness.wardPath, "--batch", script, "--user", "demo", "--password-file", h.passwordFile,
            ],
            environment: h.environment
        )
        #expect(TerminalHarness.lastStatus == 0, "ward --batch \(name): exit \(TerminalHarness.lastStatus)")
        return try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n").map(String.init)
    }

    /// `fdatasync` calls on the log itself (its head file is synced on the plugin's timer).
    static func logSyncs(_ trace: [String]) -> Int {
        trace.filter { $0.contains("fdatasync(") && $0.contains("audit.jsonl>") }.count
    }

    /// A `note` syncs twice: its `started` record is on disk before the store writes the note,
    /// and its outcome after.
    @Test func always_syncsTheLogOnceACommand_whateverTheCommandDoes_andAWriteTwice() throws {
        guard Self.requireStrace() else { return }
        let h = try BatchHome(site: Self.site)
        let commands = [
            "find alvarez", "open W0000011", "show", "show allergies", "whoami", "find zzzznobody", "charts",
            "help", "note checked", "open W0000011", "close",
        ]
        let none = Self.logSyncs(try Self.traced(h, [], name: "empty"))
        let some = Self.logSyncs(try Self.traced(h, commands, name: "commands"))
        #expect(some - none == commands.count + 1, "\(some) syncs for \(commands.count) commands, \(none) without any")
        #expect(try h.verifyAudit() == 0)
    }

    @Test func aChartReachesStandardOutput_onlyAfterItsAccessIsWrittenAndSynced() throws {
        guard Self.requireStrace() else { return }
        let h = try BatchHome(site: Self.site)
        let trace = try Self.traced(h, ["open W0000011", "show"], name: "open")
        let shown = try #require(
            trace.firstIndex { $0.contains("write(1<") && $0.contains("Opened W0000011") },
            "the open's line on standard output"
        )
        let recorded = try #require(
            trace.firstIndex { $0.contains("audit.jsonl>") && $0.contains("W0000011") && $0.contains("open") },
            "the open's access record written"
        )
        let synced = try #require(
            trace.indices.first {
                $0 > recorded && trace[$0].contains("fdatasync(") && trace[$0].contains("audit.jsonl>")
            }
        )
        #expect(recorded < synced && synced < shown)
        let summary = try #require(
            trace.firstIndex { $0.contains("write(1<") && $0.contains("Alvarez") && $0 != trace[shown] }
        )
        let read = try #require(
            trace.firstIndex { $0.contains("audit.jsonl>") && $0.contains("read") && $0.contains("summary") }
        )
        #expect(read < summary)
    }

    /// A plugin (chained after the audit log) that makes the log at `log` read-only once
    /// `open`'s line is on record: the disk fails between a command's line and its access.
    /// Returns the site file that chains it.
    static func failAfterOpen(log: String, in directory: URL, site: String = Self.site) throws -> String {
        let plugin = directory.appendingPathComponent("fail-after-open.py").path
        try """
        import json, os, sys
        for raw in sys.stdin:
            message = json.loads(raw)
            if message.get("type") == "hello":
                print(json.dumps({"id": 0, "protocol": "2.0"}), flush=True)
            if message.get("type") != "event":
                continue
            event = message.get("event") or {}
            if event.get("kind") == "line" and event.get("text", "").startswith("open"):
                os.chmod(\(String(reflecting: log)), 0o400)
            sys.stdout.write(json.dumps({"action": "continue", "id": message["id"]}) + "\\n")
            sys.stdout.flush()
        """.write(toFile: plugin, atomically: true, encoding: .utf8)
        return site + "\n[[plugin]]\nname = \"external\"\ncommand = [\"python3\", \"\(plugin)\"]\nevents = [\"line\"]\n"
    }

    @Test func anAccessTheAuditLogCannotWrite_keepsTheChartOffStandardOutput() throws {
        let h = try BatchHome(site: Self.site)
        let log = h.home + "/audit.jsonl"
        try Self.failAfterOpen(log: log, in: h.directory).write(toFile: h.site, atomically: true, encoding: .utf8)
        let script = try h.script(["whoami", "open W0000011"])
        let p = try h.start(["--batch", script, "--user", "demo", "--password-file", h.passwordFile])
        p.closeInput()
        _ = try p.waitForExit()
        chmod(log, 0o600)
        #expect(p.standardOutput.contains("demo (clinician)"), "the line before was shown")
        #expect(!p.standardOutput.contains("W0000011"), "nothing of the chart: \(p.standardOutput)")
        #expect(!p.standardOutput.contains("Alvarez"))
        #expect(p.standardError.contains("script.ward:2: Not shown: the audit log cannot be written"))
        #expect(p.standardError.contains("locked (failure)"))
    }

    /// At a terminal without the pager, where a command's text went to the screen as it was
    /// written: every byte the pane received (`tmux pipe-pane`) is checked, since the lock that
    /// follows clears the screen and its scrollback.
    @Test func atATerminalWithoutThePager_aChartTheAuditLogCannotRecord_neverReachesThePane() throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent(
            "ward-one-sync-\(UUID().uuidString)"
        )
        try FileManager.default.createDirectory(
            at: scratch.appendingPathComponent("ward"),
            withIntermediateDirectories: true
        )
        defer { try? FileManager.default.removeItem(at: scratch) }
        try "[display]\npager = false\n".write(
            to: scratch.appendingPathComponent("ward/config.toml"),
            atomically: true,
            encoding: .utf8
        )
        let pane = scratch.appendingPathComponent("pane.bytes").path
        let log = scratch.appendingPathComponent("audit.jsonl").path
        let audit = "[[plugin]]\nname = \"audit-log\"\nfsync = \"always\"\npath = \"\(log)\"\n"
        let site = try Self.failAfterOpen(log: log, in: scratch, site: audit + TerminalHarness.unguarded)
        let t = try TerminalHarness(site: site, environment: ["XDG_CONFIG_HOME": scratch.path])
        _ = try t.tmux(["pipe-pane", "-o", "cat >> '\(pane)'"])
        try TerminalHarness.run(
            TerminalHarness.wardPath,
            ["demo", "--patients", "5", "--no-shell"],
            environment: ["WARD_HOME": t.home.path, "WARD_SITE": t.siteFile.path, "HOME": t.directory.path]
        )
        #expect(TerminalHarness.lastStatus == 0)
        try t.signOn()
        try t.enter("whoami")
        try t.waitFor("alice (clinician)")
        try t.enter("open W0000003")
        try t.waitFor("Password for alice:")
        chmod(log, 0o600)
        let bytes = (try? String(contentsOfFile: pane, encoding: .utf8)) ?? ""
        #expect(bytes.contains("Not shown: the audit log cannot be written"))
        #expect(!bytes.contains("Opened W0000003"), "the chart's line reached the terminal")
        #expect(!bytes.contains("W0000003:"))
    }
}
