import Foundation
import Glibc
import RsyslogTestSupport
import Testing

/// Forwarding to syslog: the real binary, a batch under a site file with `forward = "syslog"`,
/// and a real rsyslogd of the test's own that receives one RFC 5424 message per record.
@Suite(.serialized) struct SyslogForwardingEndToEndTests {
    /// A directory for the daemon, apart from the Ward home (which `BatchHome` makes after the
    /// daemon is up, since its site file names the socket).
    final class DaemonDirectory {
        let path: String

        init() throws {
            path =
                FileManager.default.temporaryDirectory.appendingPathComponent("ward-rsyslog-\(UUID().uuidString)")
                .path
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        }

        deinit { try? FileManager.default.removeItem(atPath: path) }
    }

    static func site(socket: String, onFailure: String = "lock") -> String {
        """
        [[plugin]]
        name = "audit-log"
        forward = "syslog"
        syslog-socket = "\(socket)"
        on-forward-failure = "\(onFailure)"

        """ + TerminalHarness.unguarded
    }

    /// The audit log's lines, each with its record's fields.
    private func fileRecords(_ h: BatchHome) throws -> [(line: [UInt8], fields: [String: Any])] {
        let path = h.home + "/audit.jsonl"
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return try text.split(separator: "\n").map { line in
            let fields = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            return (Array(line.utf8), fields)
        }
    }

    @Test func aBatchsRecords_eachReachRsyslog_asOneMessage_withKindSeqHashAndTheLine() throws {
        let directory = try DaemonDirectory()
        let daemon = try RsyslogDaemon(directory: directory.path)
        let h = try BatchHome(site: Self.site(socket: daemon.socketPath), patients: 20)
        let before = try fileRecords(h).count
        let script = try h.script(["charts", "open W0000011", "show meds", "close"])
        let p = try h.start(["--batch", script, "--user", "demo", "--password-file", h.passwordFile])
        #expect(try p.waitForExit() == 0)

        let records = Array(try fileRecords(h).dropFirst(before))
        #expect(
            records.map { $0.fields["kind"] as? String } == [
                "sign-on", "command", "command", "access", "command", "access", "command", "access", "sign-off",
            ]
        )
        let firstSeq = try #require(records.first?.fields["seq"] as? Int)
        _ = daemon.messages(atLeast: firstSeq - 1 + records.count)
        daemon.stop()
        // What came before the batch (if `ward demo` forwards too) is not this test's.
        let received = daemon.messages().filter { message in
            guard let seq = message.structuredData.split(separator: "\"").dropFirst().first.flatMap({ Int($0) })
            else { return true }
            return seq >= firstSeq
        }
        try #require(received.count == records.count, "\(received)")
        for (record, message) in zip(records, received) {
            let seq = try #require(record.fields["seq"] as? Int)
            let hash = try #require(record.fields["hash"] as? String)
            #expect(message.facility == 10)
            #expect(message.severity == 6)
            #expect(message.appName == "ward")
            #expect(message.procID == "\(p.pid)")
            #expect(message.hostname == record.fields["host"] as? String)
            #expect(message.msgID == record.fields["kind"] as? String)
            #expect(message.structuredData == "[ward@32473 seq=\"\(seq)\" hash=\"\(hash)\"]")
            #expect(message.msg == record.line)
        }
        #expect(try h.verifyAudit() == 0)
    }

    @Test func noDaemon_lock_deniesAtSignOn_andTheFileHasTheRecord() throws {
        let directory = try DaemonDirectory()
        // `ward demo` (the home's setup) would refuse under `lock` with no daemon: see below.
        let h = try BatchHome(site: Self.site(socket: directory.path + "/log", onFailure: "warn"), patients: 5)
        try Self.site(socket: directory.path + "/log").write(toFile: h.site, atomically: true, encoding: .utf8)
        let before = try fileRecords(h).count
        let script = try h.script(["charts"])
        let p = try h.start(["--batch", script, "--user", "demo", "--password-file", h.passwordFile])
        #expect(try p.waitForExit() != 0)
        #expect(p.standardError.contains("syslog"))
        let kinds = try fileRecords(h).dropFirst(before).map { $0.fields["kind"] as? String }
        #expect(kinds.first == "sign-on")
        // The sign-on is in the file, the line never ran.
        #expect(!kinds.contains("access"))
    }

    @Test func noDaemon_warn_runsTheBatch_withANotice_andTheFileHasEveryRecord() throws {
        let directory = try DaemonDirectory()
        let h = try BatchHome(site: Self.site(socket: directory.path + "/log", onFailure: "warn"), patients: 20)
        let before = try fileRecords(h).count
        let script = try h.script(["open W0000011"])
        let p = try h.start(["--batch", script, "--user", "demo", "--password-file", h.passwordFile])
        #expect(try p.waitForExit() == 0)
        #expect(p.standardError.contains("is in the log but not sent to syslog"))
        let kinds = try fileRecords(h).dropFirst(before).map { $0.fields["kind"] as? String }
        #expect(kinds == ["sign-on", "command", "access", "sign-off"])
    }

    @Test func anAdministrativeCommand_isForwarded_andUnderLockWithNoDaemon_changesNothing() throws {
        let directory = try DaemonDirectory()
        let daemon = try RsyslogDaemon(directory: directory.path)
        let h = try BatchHome(site: Self.site(socket: daemon.socketPath), patients: 1)
        _ = try TerminalHarness.run(
            TerminalHarness.wardPath,
            ["user", "add", "bob", "--role", "clerk", "--password-stdin"],
            environment: h.environment,
            input: "bobs password\n"
        )
        #expect(TerminalHarness.lastStatus == 0)
        let added = try #require(try fileRecords(h).last)
        #expect(added.fields["kind"] as? String == "user-add")
        let received = daemon.messages(atLeast: try #require(added.fields["seq"] as? Int))
        #expect(received.last?.msgID == "user-add")
        #expect(received.last?.msg == added.line)
        daemon.stop()

        // The daemon is gone: under `lock` the command refuses before it changes anything.
        let before = try fileRecords(h).count
        _ = try TerminalHarness.run(
            TerminalHarness.wardPath,
            ["user", "add", "carol", "--role", "clerk", "--password-stdin"],
            environment: h.environment,
            input: "carols password\n"
        )
        #expect(TerminalHarness.lastStatus == 74)
        #expect(try fileRecords(h).count == before)
        let users = try TerminalHarness.run(TerminalHarness.wardPath, ["user", "list"], environment: h.environment)
        #expect(users.contains("bob") && !users.contains("carol"))
    }

    @Test func configCheck_showsTheForwardingKeys_andRefusesARelativeSocket() throws {
        let directory = try DaemonDirectory()
        let h = try BatchHome(site: Self.site(socket: "/run/ward/syslog.sock", onFailure: "warn"), patients: 1)
        let shown = try TerminalHarness.runToEnd(
            ["config", "check"],
            environment: h.environment,
            capturingIn: URL(fileURLWithPath: directory.path)
        )
        #expect(shown.status == 0)
        let out = String(decoding: shown.out, as: UTF8.self)
        #expect(out.contains("forward = \"syslog\"\n"))
        #expect(out.contains("syslog-socket = \"/run/ward/syslog.sock\"\n"))
        #expect(out.contains("on-forward-failure = \"warn\"\n"))

        try Self.site(socket: "run/ward/syslog.sock").write(toFile: h.site, atomically: true, encoding: .utf8)
        let refused = try TerminalHarness.runToEnd(
            ["config", "check"],
            environment: h.environment,
            capturingIn: URL(fileURLWithPath: directory.path)
        )
        #expect(refused.status == 78)
        #expect(
            String(decoding: refused.err, as: UTF8.self)
                == "ward: \(h.site):4: 'syslog-socket' must be an absolute path of at most 107 bytes.\n"
        )
    }
}
