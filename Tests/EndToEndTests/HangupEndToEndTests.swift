import Foundation
import Glibc
import Testing

/// Every signal passes the chain, at a terminal as in a batch. A session whose pane is
/// killed (its terminal hung up) or that is sent SIGTERM leaves the audit log a `signal` record
/// and a sign-off, and an external plugin subscribed to lifecycle events hears the signal.
@Suite(.serialized) struct HangupEndToEndTests {
    /// A site with the audit log and an external plugin that appends every message it receives
    /// to `log`, and lets everything through.
    static func site(plugin script: String, log: String) -> String {
        """
        [[plugin]]
        name = "audit-log"

        [[plugin]]
        name = "external"
        command = ["python3", "\(script)", "\(log)"]
        events = ["session", "lifecycle"]
        timeout = "5s"
        """ + TerminalHarness.unguarded
    }

    /// The plugin: one JSON message per line in, `continue` out; each message appended to a file.
    static func writePlugin(in directory: String) throws -> (script: String, log: String) {
        let script = directory + "/listener.py"
        let log = directory + "/listener.jsonl"
        try """
        import json, sys
        log = open(sys.argv[1], "a")
        for raw in iter(sys.stdin.readline, ""):
            log.write(raw)
            log.flush()
            m = json.loads(raw)
            if m.get("type") == "hello":
                print(json.dumps({"id": 0, "protocol": "2.0"}), flush=True)
            if m.get("type") == "event":
                print(json.dumps({"id": m["id"], "action": "continue"}), flush=True)
        """.write(toFile: script, atomically: true, encoding: .utf8)
        return (script, log)
    }

    /// The lifecycle signals the plugin heard, in order.
    static func signalsHeard(_ log: String) -> [String] {
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap {
            let message = try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            let event = message?["event"] as? [String: Any]
            return event?["kind"] as? String == "lifecycle" ? event?["signal"] as? String : nil
        }
    }

    /// `ward audit show --format json` for the terminal harness's home, one object per record.
    static func auditRecords(_ t: TerminalHarness) throws -> [[String: Any]] {
        let env = ["WARD_HOME": t.home.path, "WARD_SITE": t.siteFile.path, "HOME": t.directory.path]
        let text = try TerminalHarness.run(
            TerminalHarness.wardPath,
            ["audit", "show", "--format", "json"],
            environment: env
        )
        return text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    /// Waits until the audit log holds a sign-off (the pane may be gone, so no exit file).
    static func waitForSignOff(_ t: TerminalHarness) throws -> [[String: Any]] {
        try eventually("a sign-off in the audit log") { () throws -> [[String: Any]]? in
            let records = try auditRecords(t)
            return records.last?["kind"] as? String == "sign-off" ? records : nil
        }
    }

    /// A terminal session with the listening plugin, signed on, a command run.
    static func signedOnTerminal(in scratch: URL) throws -> (TerminalHarness, log: String) {
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let plugin = try Self.writePlugin(in: scratch.path)
        let t = try TerminalHarness(site: Self.site(plugin: plugin.script, log: plugin.log))
        try t.signOn()
        try t.enter("whoami")
        try t.waitFor("alice (clinician)")
        return (t, plugin.log)
    }

    @Test func aTerminalWhosePaneIsKilled_auditsTheHangup_andThePluginHearsIt() throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("ward-hup-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let (t, log) = try Self.signedOnTerminal(in: scratch)
        try t.tmux(["kill-pane"])

        let records = try Self.waitForSignOff(t)
        let kinds = records.compactMap { $0["kind"] as? String }
        #expect(kinds.suffix(2) == ["signal", "sign-off"])
        #expect(records.first { $0["kind"] as? String == "signal" }?["signal"] as? String == "SIGHUP")
        #expect(records.last?["how"] as? String == "hangup")
        #expect(Self.signalsHeard(log) == ["hangup"])
    }

    @Test func aTerminalSentSIGTERM_auditsIt_exits143_andThePluginHearsIt() throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("ward-term-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let (t, log) = try Self.signedOnTerminal(in: scratch)
        kill(try t.wardPID(), SIGTERM)
        #expect(try t.waitForExit() == 143)
        #expect(isCooked(try t.terminalModeAfterExit()))

        let records = try Self.auditRecords(t)
        #expect(records.compactMap { $0["kind"] as? String }.suffix(2) == ["signal", "sign-off"])
        #expect(records.first { $0["kind"] as? String == "signal" }?["signal"] as? String == "SIGTERM")
        #expect(records.last?["how"] as? String == "terminate")
        #expect(Self.signalsHeard(log) == ["terminate"])
    }

    @Test(arguments: [(SIGHUP, Int32(129), "SIGHUP", "hangup"), (SIGTERM, Int32(143), "SIGTERM", "terminate")])
    func aBatchSentASignal_auditsIt_andThePluginHearsIt(signal: Int32, status: Int32, name: String, how: String) throws
    {
        let h = try BatchHome()
        let plugin = try Self.writePlugin(in: h.directory.path)
        try Self.site(plugin: plugin.script, log: plugin.log).write(toFile: h.site, atomically: true, encoding: .utf8)
        let p = try h.start(["--user", "demo", "--password-file", h.passwordFile])
        p.send("open W0000011")
        try p.waitFor("Opened W0000011")
        kill(p.pid, signal)
        #expect(try p.waitForExit() == status)

        let records = try h.auditRecords()
        #expect(
            records.compactMap { $0["kind"] as? String } == ["sign-on", "command", "access", "signal", "sign-off"]
        )
        #expect(records[2]["mrn"] as? String == "W0000011")
        #expect(records[3]["signal"] as? String == name)
        #expect(records.last?["how"] as? String == how)
        #expect(Self.signalsHeard(plugin.log) == [how])
        #expect(try h.verifyAudit() == 0)
    }
}
