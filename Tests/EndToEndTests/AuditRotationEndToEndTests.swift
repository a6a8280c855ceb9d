import Foundation
import Glibc
import Testing

/// The audit log survives rotation, by `ward audit rotate` and by the real logrotate
/// with the snippet Ward ships, and `ward audit verify` checks the files as one chain.
@Suite(.serialized) struct AuditRotationEndToEndTests {
    private func batch(_ h: BatchHome, _ lines: [String]) throws {
        let script = try h.script(lines, name: "batch-\(UUID().uuidString).ward")
        let p = try h.start(["--batch", script, "--user", "demo", "--password-file", h.passwordFile])
        #expect(try p.waitForExit() == 0, "stderr: \(p.standardError)")
    }

    private func ward(_ h: BatchHome, _ arguments: [String]) throws -> (output: String, status: Int32) {
        let output = try TerminalHarness.run(TerminalHarness.wardPath, arguments, environment: h.environment)
        return (output, TerminalHarness.lastStatus)
    }

    private var log: (BatchHome) -> String { { $0.home + "/audit.jsonl" } }

    /// Replaces the first `old` in the file with `new`, keeping its mode.
    private func edit(_ path: String, _ old: String, _ new: String) throws {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let range = try #require(text.range(of: old))
        try text.replacingCharacters(in: range, with: new).write(toFile: path, atomically: false, encoding: .utf8)
    }

    /// The issue's test: two batches with `ward audit rotate` between them verify as one chain;
    /// deleting the older file, or editing either, exits 65.
    @Test func rotateBetweenTwoBatches_verifiesBothFiles_andEachTamperingExits65() throws {
        let h = try BatchHome(patients: 5)
        try batch(h, ["find alvarez", "whoami"])
        let rotated = try ward(h, ["audit", "rotate"])
        #expect(rotated.status == 0)
        #expect(rotated.output.contains("audit.jsonl.1 holds "))
        try batch(h, ["whoami"])

        let verified = try ward(h, ["audit", "verify"])
        #expect(verified.status == 0, "\(verified.output)")
        #expect(verified.output.contains("2 files, "))
        let records = try h.allAuditRecords()
        let kinds = records.compactMap { $0["kind"] as? String }
        // Show reads the series, oldest file first: the first batch, the rotate record, the second.
        let rotate = try #require(kinds.firstIndex(of: "rotate"))
        #expect(kinds[..<rotate].contains("sign-off") && kinds[rotate...].contains("sign-on"))
        // Who rotated is the Unix user, as in the administrative records; no Ward user is signed on.
        #expect(records[rotate]["unix_user"] is String && records[rotate]["uid"] is Int)
        #expect(records[rotate]["user"] is NSNull)

        let older = log(h) + ".1"
        let originals = try [older, log(h)].map { ($0, try Data(contentsOf: URL(fileURLWithPath: $0))) }
        func restore() throws { for (path, data) in originals { try data.write(to: URL(fileURLWithPath: path)) } }

        try edit(older, "\"whoami\"", "\"whoamx\"")
        #expect(try ward(h, ["audit", "verify"]).status == 65)
        try restore()
        try edit(log(h), "\"whoami\"", "\"whoamx\"")
        #expect(try ward(h, ["audit", "verify"]).status == 65)
        try restore()
        #expect(try ward(h, ["audit", "verify"]).status == 0)
        #expect(unlink(older) == 0)
        #expect(try ward(h, ["audit", "verify"]).status == 65)
    }

    /// A log that does not exist is no input, and nothing is created in its place.
    @Test func rotatingALogThatDoesNotExist_exits66_andCreatesNothing() throws {
        let h = try BatchHome(patients: 5)
        let missing = h.directory.appendingPathComponent("nowhere.jsonl").path
        #expect(try ward(h, ["audit", "rotate", missing]).status == 66)
        #expect(access(missing, F_OK) != 0 && access(missing + ".head", F_OK) != 0)
        #expect(try ward(h, ["audit", "verify", "--start-after", "not-a-hash"]).status == 64)
    }

    /// A session running while the log rotates keeps working; its later records go to the new file.
    @Test func aRunningBatch_keepsWorking_acrossARotation() throws {
        let h = try BatchHome(patients: 5)
        let p = try h.start(["--user", "demo", "--password-fd", "3"], passwordOnDescriptor3: "demo\n")
        p.send("whoami")
        try p.waitFor("demo (clinician)")
        #expect(try ward(h, ["audit", "rotate"]).status == 0)
        p.send("find alvarez", "whoami")
        p.closeInput()
        #expect(try p.waitForExit() == 0, "stderr: \(p.standardError)")
        #expect(try ward(h, ["audit", "verify"]).status == 0)
        let kinds = try h.allAuditRecords().compactMap { $0["kind"] as? String }
        let rotate = try #require(kinds.firstIndex(of: "rotate"))
        #expect(kinds[rotate...].contains("sign-off"))
    }

    /// The real logrotate with `contrib/logrotate.d/ward` (its path, account and binary made this
    /// test's): it renames, the postrotate script starts the new file, and verify passes; twice.
    @Test func logrotate_withTheShippedSnippet_keepsOneChain() throws {
        let logrotate = "/usr/sbin/logrotate"
        guard access(logrotate, X_OK) == 0 else {
            Issue.record("logrotate is not installed: install the Debian package 'logrotate'")
            return
        }
        let h = try BatchHome(patients: 5)
        let user = String(cString: try #require(getpwuid(geteuid())?.pointee.pw_name))
        let group = String(cString: try #require(getgrgid(getegid())?.pointee.gr_name))
        var snippet = try String(contentsOfFile: Self.repository + "/contrib/logrotate.d/ward", encoding: .utf8)
        snippet = snippet.replacingOccurrences(of: "/var/log/ward/audit.jsonl", with: log(h))
        snippet = snippet.replacingOccurrences(of: "su ward ward", with: "su \(user) \(group)")
        snippet = snippet.replacingOccurrences(of: "/usr/local/bin/ward", with: TerminalHarness.wardPath)
        // runuser needs root; another user's logrotate runs its scripts as that user already.
        snippet = snippet.replacingOccurrences(
            of: "/usr/sbin/runuser -u ward -- ",
            with: geteuid() == 0 ? "/usr/sbin/runuser -u \(user) -- " : ""
        )
        let config = h.directory.appendingPathComponent("logrotate.conf").path
        try snippet.write(toFile: config, atomically: true, encoding: .utf8)
        chmod(config, 0o644)
        let state = h.directory.appendingPathComponent("logrotate.state").path

        for round in 1...2 {
            try batch(h, ["whoami"])
            _ = try TerminalHarness.run(logrotate, ["-f", "-s", state, config], environment: h.environment)
            #expect(TerminalHarness.lastStatus == 0, "logrotate round \(round)")
            let latest = try h.allAuditRecords().last  // nothing was written since the rotation
            #expect(latest?["kind"] as? String == "rotate")
            #expect(latest?["how"] as? String == "renamed")
            #expect(latest?["file"] as? String == "audit.jsonl.1")
        }
        try batch(h, ["whoami"])
        #expect(access(log(h) + ".2", F_OK) == 0)
        let verified = try ward(h, ["audit", "verify"])
        #expect(verified.status == 0, "\(verified.output)")
        #expect(verified.output.contains("3 files"))
    }

    /// The checkout this test was built from: contrib/ and scripts/ are read from it.
    static let repository: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()
}
