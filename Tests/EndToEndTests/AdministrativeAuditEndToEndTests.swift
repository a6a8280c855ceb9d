import Foundation
import Glibc
import Testing

/// The audit trail's administrative records, through the real binary: where each sign-on came from, failed
/// sign-ons without an unknown name, the administrative commands' records with the Unix user
/// who ran them, and `ward audit show`'s outcome and kind filters and exact JSON.
@Suite struct AdministrativeAuditEndToEndTests {
    /// The Unix user running the tests, as the records should name it.
    static let unixUser: String = {
        guard let entry = getpwuid(getuid()), let name = entry.pointee.pw_name else { return "" }
        return String(cString: name)
    }()

    /// Runs `ward ARGS` in `h` with `input` on standard input; status, stdout, stderr.
    private func ward(_ arguments: [String], input: String = "", _ h: BatchHome) throws -> (Int32, String, String) {
        let p = try h.start(arguments)
        if !input.isEmpty { p.sendRaw(input) }
        p.closeInput()
        let status = try p.waitForExit()
        return (status, p.standardOutput, p.standardError)
    }

    /// The log's raw lines, as written.
    private func logLines(_ h: BatchHome) throws -> [String] {
        try String(contentsOfFile: h.home + "/audit.jsonl", encoding: .utf8).split(separator: "\n").map(String.init)
    }

    @Test func aBatchSignOn_recordsBatchAndTheScript_orDashForStandardInput() throws {
        let h = try BatchHome(patients: 5)
        let script = try h.script(["whoami"])
        #expect(try ward(["--batch", script, "--user", "demo", "--password-file", h.passwordFile], h).0 == 0)
        #expect(
            try ward(["--batch", "-", "--user", "demo", "--password-file", h.passwordFile], input: "whoami\n", h).0 == 0
        )
        let signOns = try h.auditRecords().filter { $0["kind"] as? String == "sign-on" }
        #expect(signOns.map { $0["via"] as? String } == ["batch", "batch"])
        #expect(signOns.map { $0["script"] as? String } == [script, "-"])
        #expect(signOns.allSatisfy { $0["user"] as? String == "demo" })
    }

    @Test func aFailedSignOn_withANameNobodyHas_recordsThatItWasUnknown_neverTheName() throws {
        let h = try BatchHome(patients: 5)
        let typed = "Tr0ub4dor-and-3"  // a password typed into the name field
        let script = try h.script(["whoami"])
        let (status, _, _) = try ward(["--batch", script, "--user", typed, "--password-file", h.passwordFile], h)
        #expect(status == 77)
        let records = try h.auditRecords()
        #expect(records.count == 1)
        let failed = try #require(records.first)
        #expect(failed["kind"] as? String == "sign-on-failed")
        #expect(failed["user"] is NSNull)
        #expect(failed["reason"] as? String == "unknown-user")
        #expect(failed["via"] as? String == "batch" && failed["script"] as? String == script)
        #expect(!(try String(contentsOfFile: h.home + "/audit.jsonl", encoding: .utf8)).contains(typed))

        // A user who exists is named, with why.
        try h.writeSecret("not demo's\n", to: h.passwordFile)
        _ = try ward(["--batch", script, "--user", "demo", "--password-file", h.passwordFile], h)
        let named = try h.auditRecords().last
        #expect(named?["user"] as? String == "demo" && named?["reason"] as? String == "wrong-password")
    }

    @Test func administrativeCommands_recordTheUnixUser_theTarget_andTheOutcome() throws {
        let h = try BatchHome(patients: 5)
        // `ward demo` made the home: its records come first.
        let setup = try h.allAuditRecords()
        // Each change has its record before (`started`) and after (how it ended).
        #expect(setup.compactMap { $0["kind"] as? String } == ["demo", "demo", "user-add", "user-add"])
        #expect(setup.compactMap { $0["outcome"] as? String } == ["started", "ok", "started", "ok"])
        #expect(setup[0]["records"] is NSNull, "not known before the demo ran")
        #expect(setup[1]["patients"] as? Int == 5 && setup[1]["records"] as? String == "made")
        #expect(setup[3]["target"] as? String == "demo" && setup[3]["target_role"] as? String == "clinician")

        #expect(
            try ward(["user", "add", "bob", "--role", "clerk", "--password-stdin"], input: "bobs password\n", h).0 == 0
        )
        #expect(try ward(["user", "passwd", "bob", "--password-stdin"], input: "bobs new password\n", h).0 == 0)
        #expect(try ward(["user", "unlock", "bob"], h).0 == 0)
        #expect(try ward(["user", "remove", "bob"], h).0 == 0)
        #expect(try ward(["user", "remove", "nobody"], h).0 == 1)
        let bundle = h.directory.appendingPathComponent("bundle.json")
        try Data(WipeCoreImageTests.bundle(family: "Turing", mrn: "T0000001").utf8).write(to: bundle)
        let broken = h.directory.appendingPathComponent("broken.json")
        try Data("{\"resourceType\": \"Bundle\", \"entry\": [".utf8).write(to: broken)
        #expect(try ward(["import", bundle.path, broken.path], h).0 == 65)

        let all = try h.auditRecords()
        #expect(
            all.compactMap { $0["kind"] as? String } == [
                "user-add", "user-add", "password-change", "password-change", "unlock-account", "unlock-account",
                "user-remove", "user-remove", "user-remove", "user-remove", "import", "import", "import", "import",
            ]
        )
        #expect(all.enumerated().allSatisfy { ($0.offset % 2 == 0) == ($0.element["outcome"] as? String == "started") })
        // The records of how each ended, in order.
        let records = all.enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
        for record in all + setup {
            #expect(record["unix_user"] as? String == Self.unixUser)
            #expect(record["uid"] as? Int == Int(getuid()))
            #expect(record["user"] is NSNull, "no Ward user is signed on")
        }
        #expect(records.map { $0["target"] as? String } == ["bob", "bob", "bob", "bob", "nobody", nil, nil])
        #expect(records.map { $0["outcome"] as? String } == ["ok", "ok", "ok", "ok", "failed", "ok", "failed"])
        #expect(records[4]["status"] as? Int == 1)
        #expect(records[5]["path"] as? String == bundle.resolvingSymlinksInPath().path)
        #expect(records[5]["bundles"] as? Int == 1 && records[5]["patients"] as? Int == 1)
        #expect(records[6]["path"] as? String == broken.resolvingSymlinksInPath().path)
        #expect(records[6]["failures"] as? Int == 1 && records[6]["status"] as? Int == 65)
        #expect(!(try String(contentsOfFile: h.home + "/audit.jsonl", encoding: .utf8)).contains("bobs"))
        // One chain with the sessions'.
        #expect(try h.verifyAudit() == 0)
    }

    @Test func anAdministrativeCommand_whoseRecordCannotBeWritten_changesNothing() throws {
        let h = try BatchHome(patients: 5)
        let log = h.home + "/audit.jsonl"
        #expect(chmod(log, 0o400) == 0)
        let (status, _, err) = try ward(
            ["user", "add", "carol", "--role", "clerk", "--password-stdin"],
            input: "carols password\n",
            h
        )
        #expect(status == 74)
        #expect(err.contains(log) && err.contains("Nothing was changed"), "\(err)")
        let (_, list, _) = try ward(["user", "list"], h)
        #expect(!list.contains("carol"))
    }

    @Test func auditShow_filtersByOutcomeAndKind_andPrintsEachRecordsExactFields() throws {
        let h = try BatchHome(patients: 20)
        #expect(
            try ward(["user", "add", "clara", "--role", "clerk", "--password-stdin"], input: "clerk password\n", h).0
                == 0
        )
        let clerkPassword = h.directory.appendingPathComponent("clerk-password").path
        try h.writeSecret("clerk password\n", to: clerkPassword)
        let script = try h.script(["open W0000011", "show labs", "open W9999999"], name: "clerk.ward")
        let batch = ["--batch", script, "--user", "clara", "--password-file", clerkPassword, "--on-error", "continue"]
        #expect(try ward(batch, h).0 == 1)

        let (status, out, _) = try ward(
            ["audit", "show", "--outcome", "denied", "--kind", "access", "--format", "json"],
            h
        )
        #expect(status == 0)
        let lines = out.split(separator: "\n").map(String.init)
        #expect(lines.count == 1)
        // The record's own line, byte for byte: every field, in the order written.
        #expect(try logLines(h).contains(lines.first ?? "-"))
        let hex = "[0-9a-f]{64}"
        let pattern =
            #"^\{"seq":[0-9]+,"ver":1,"ts":"[0-9T:.Z-]+","host":"[^"]+","pid":[0-9]+,"session":"[0-9a-f]+","user":"clara","#
            + #""role":"clerk","source":"batch:\#(script):2","kind":"access","action":"read","mrn":"W0000011","#
            + #""section":"labs","outcome":"denied","prev":"\#(hex)","hash":"\#(hex)"\}$"#
        #expect(lines.first?.range(of: pattern, options: .regularExpression) != nil, "\(lines)")

        let (_, failed, _) = try ward(["audit", "show", "--outcome", "failed", "--kind", "access,sign-on"], h)
        let rows = failed.split(separator: "\n").map { $0.split(separator: " ").joined(separator: " ") }
        #expect(rows.count == 2, "\(rows)")
        #expect(rows.last?.hasSuffix("access failed action=open mrn=W9999999") == true, "\(rows)")

        let (bad, _, err) = try ward(["audit", "show", "--kind", "sign-on,acess"], h)
        #expect(bad == 64)
        #expect(err.contains("--kind 'acess' is not a record kind"), "\(err)")
        let (badOutcome, _, errOutcome) = try ward(["audit", "show", "--outcome", "maybe"], h)
        #expect(badOutcome == 64 && errOutcome.contains("maybe"), "\(errOutcome)")
    }
}

/// Where a terminal sign-on came from: the terminal's device, and the SSH peer when
/// `SSH_CONNECTION` says there is one.
@Suite struct TerminalSignOnSourceEndToEndTests {
    private func signOnRecord(environment: [String: String]) throws -> [String: Any] {
        let t = try TerminalHarness(
            site: "[[plugin]]\nname = \"audit-log\"\n" + TerminalHarness.unguarded,
            environment: environment
        )
        try t.signOn()
        try t.press("C-d")
        #expect(try t.waitForExit() == 0)
        let env = ["WARD_HOME": t.home.path, "WARD_SITE": t.siteFile.path, "HOME": t.directory.path]
        let (status, out, _) = try TerminalHarness.runToEnd(
            ["audit", "show", "--kind", "sign-on", "--format", "json"],
            environment: env,
            capturingIn: t.directory
        )
        #expect(status == 0)
        let records = String(decoding: out, as: UTF8.self).split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(records.count == 1)
        return records.first ?? [:]
    }

    @Test func aTerminalSignOn_recordsTerminalAndItsDevice() throws {
        let record = try signOnRecord(environment: [:])
        #expect(record["via"] as? String == "terminal")
        #expect((record["tty"] as? String)?.hasPrefix("/dev/pts/") == true, "\(record)")
        #expect(record["peer"] == nil)
    }

    @Test func anSSHSignOn_recordsThePeersAddressAndPort() throws {
        let record = try signOnRecord(environment: ["SSH_CONNECTION": "203.0.113.9 50122 198.51.100.1 22"])
        #expect(record["via"] as? String == "ssh")
        #expect(record["peer"] as? String == "203.0.113.9" && record["port"] as? Int == 50122)
        #expect((record["tty"] as? String)?.hasPrefix("/dev/pts/") == true, "\(record)")
    }
}

/// A script stopped and continued between commands: the audit log has the suspend, and the
/// resume with how long the script was stopped (real time: a fraction of a second).
@Suite struct BatchSuspendAuditEndToEndTests {
    @Test func aStoppedBatch_recordsSuspend_andResumeWithTheTimeAway() throws {
        let h = try BatchHome(patients: 20)
        let p = try h.start(["--user", "demo", "--password-file", h.passwordFile])
        p.send("open W0000011")
        try p.waitFor("Opened W0000011")
        kill(p.pid, SIGTSTP)
        // Ward stops itself once the chain has heard of it: wait until it is stopped.
        var status: Int32 = 0
        #expect(waitpid(p.pid, &status, WUNTRACED) == p.pid && (status & 0xFF) == 0x7F)
        usleep(300_000)  // the time away under test: the resume record must count at least this
        kill(p.pid, SIGCONT)
        p.send("show")
        p.closeInput()
        #expect(try p.waitForExit() == 0)
        let records = try h.auditRecords()
        #expect(
            records.compactMap { $0["kind"] as? String } == [
                "sign-on", "command", "access", "suspend", "resume", "command", "access", "sign-off",
            ]
        )
        let away = records.first { $0["kind"] as? String == "resume" }?["away_ms"] as? Int ?? 0
        #expect((300..<10_000).contains(away), "away_ms \(away)")
    }
}
