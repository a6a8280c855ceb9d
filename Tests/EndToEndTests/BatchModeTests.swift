import Foundation
import Glibc
import Testing

/// `ward --batch`: the real binary with a script from a file or a pipe, no terminal.
@Suite(.serialized) struct BatchModeTests {
    /// Standard output's lines as JSON objects.
    private func objects(_ text: String) throws -> [[String: Any]] {
        try text.split(separator: "\n").map {
            try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    @Test func aScriptFile_runsLineByLine_failuresNamedFileAndLine_andStopsAtTheFirst() throws {
        let h = try BatchHome()
        let script = try h.script(["# morning list", "", "find alvarez", "open W0000011", "show", "fnd x", "whoami"])
        let p = try h.start(["--batch", script, "--user", "demo", "--password-file", h.passwordFile])
        #expect(try p.waitForExit() == 1)
        #expect(p.standardOutput.contains("W0000011  Alvarez, Brandon"))
        #expect(p.standardOutput.contains("Name            Alvarez, Brandon"))
        #expect(!p.standardOutput.contains("demo (clinician)"))  // whoami came after the failure
        #expect(
            p.standardError.contains(
                "\(script):6: unknown command 'fnd'. Did you mean 'find'? Type 'help' for the list."
            )
        )
        #expect(!p.standardOutput.contains("\u{1B}"))

        let records = try h.auditRecords()
        let commands = records.filter { $0["kind"] as? String == "command" }
        #expect(commands.map { $0["source"] as? String } == (3...6).map { "batch:\(script):\($0)" })
        #expect(records.last?["how"] as? String == "command-failed")
        #expect(try h.verifyAudit() == 0)
    }

    @Test func aPipeOnStandardInput_isABatch_withoutTheFlag_andJSONIsOneObjectPerCommand() throws {
        let h = try BatchHome()
        let p = try h.start(
            ["--user", "demo", "--password-fd", "3", "--format", "json", "--on-error", "continue"],
            passwordOnDescriptor3: "demo\n"
        )
        p.send("find alvarez", "open W0000011", "show nothing", "whoami")
        p.closeInput()
        #expect(try p.waitForExit() == 1)
        let records = try objects(p.standardOutput)
        #expect(records.map { $0["line"] as? Int } == [1, 2, 3, 4])
        #expect(records.map { $0["status"] as? String } == ["ok", "ok", "failed", "ok"])
        // Typed rows: `row` is a number, `restricted` a boolean.
        let rows = try #require(records[0]["rows"] as? [[String: Any]])
        #expect(
            rows.contains {
                $0["mrn"] as? String == "W0000011" && $0["name"] as? String == "Alvarez, Brandon"
                    && $0["row"] as? Int == 1
                    && $0["restricted"] as? Bool == false
            }
        )
        #expect(records[3]["messages"] as? [String] == ["demo (clinician)"])
        #expect(p.standardError.contains("<stdin>:3: "))
        let audit = try h.auditRecords()
        #expect(audit.contains { $0["source"] as? String == "batch:<stdin>:4" })
    }

    /// After a failed `open`, a `show` reads no chart: not the one opened before, which is no
    /// longer current. The batch stops there with 65, whatever `--on-error` says; each access
    /// comes from the shell, after the command ran.
    @Test func aShowAfterAFailedOpen_readsNoChart_andStopsTheBatch() throws {
        let h = try BatchHome()
        let script = try h.script(["open W0000011", "open W9999999", "show", "close", "show"])
        let p = try h.start([
            "--batch", script, "--user", "demo", "--password-file", h.passwordFile, "--on-error", "continue",
        ])
        #expect(try p.waitForExit() == 65)
        #expect(p.standardError.contains("\(script):2: "))
        #expect(p.standardError.contains("\(script):3: no chart is current (1 chart is open: 'charts' lists them)."))
        let commands = try h.auditRecords().filter { $0["kind"] as? String == "command" }
        #expect(commands.map { $0["command"] as? String } == ["open", "open", "show"])
        #expect(commands.allSatisfy { $0["mrn"] == nil && $0["chart"] == nil }, "never read from the line")
        let accesses = try h.auditRecords().filter { $0["kind"] as? String == "access" }
        #expect(accesses.map { $0["action"] as? String } == ["open", "open"])
        #expect(accesses.map { $0["mrn"] as? String } == ["W0000011", "W9999999"])
        #expect(accesses.map { $0["outcome"] as? String } == ["ok", "failed"])
        #expect(accesses.map { $0["source"] as? String } == (1...2).map { "batch:\(script):\($0)" })
    }

    /// A script cannot be asked why it breaks the glass: it says so on the line.
    @Test func aRestrictedChart_opensInABatch_onlyWithTheReasonOnTheLine() throws {
        let h = try BatchHome()
        let script = try h.script(["open W0000076", "open W0000076 --reason 'audit sample 12'", "show"])
        let p = try h.start([
            "--batch", script, "--user", "demo", "--password-file", h.passwordFile, "--on-error", "continue",
        ])
        #expect(try p.waitForExit() == 1)
        #expect(p.standardError.contains("\(script):1: W0000076 was not opened"))
        #expect(p.standardError.contains("open W0000076 --reason"))
        #expect(p.standardOutput.contains("Opened W0000076"))
        let glass = try h.auditRecords().filter { $0["kind"] as? String == "break-glass" }
        #expect(glass.count == 1 && glass.first?["reason"] as? String == "audit sample 12")
    }

    @Test func wrongCredentials_exit77_andNoCommandRuns() throws {
        let h = try BatchHome()
        try h.writeSecret("not the password\n", to: h.passwordFile)
        let script = try h.script(["open W0000011"])
        let p = try h.start(["--batch", script, "--user", "demo", "--password-file", h.passwordFile])
        #expect(try p.waitForExit() == 77)
        #expect(p.standardOutput.isEmpty)
        #expect(p.standardError.contains("Wrong user name or password."))
        let kinds = try h.auditRecords().compactMap { $0["kind"] as? String }
        #expect(kinds == ["sign-on-failed"])
    }

    @Test func aPasswordFileOthersCanRead_isRefused_withTheReason_beforeSignOn() throws {
        let h = try BatchHome()
        chmod(h.passwordFile, 0o640)
        let script = try h.script(["whoami"])
        let p = try h.start(["--batch", script, "--user", "demo", "--password-file", h.passwordFile])
        #expect(try p.waitForExit() == 78)
        #expect(p.standardError.contains("group or others can read it"))
        #expect(p.standardError.contains("chmod 600"))
        #expect(try h.auditRecords().isEmpty)
    }

    @Test func usageErrors_exit64_or66_andSayWhatIsMissing() throws {
        let h = try BatchHome()
        let script = try h.script(["whoami"])
        let cases: [([String], Int32, String)] = [
            (["--batch", script, "--password-file", h.passwordFile], 64, "--user"),
            (["--batch", script, "--user", "demo"], 64, "--password-fd N or --password-file PATH"),
            (["--batch", script, "--user", "demo", "--password-fd", "250"], 64, "no such open descriptor"),
            (["--batch", script + ".missing", "--user", "demo", "--password-file", h.passwordFile], 66, "cannot open"),
        ]
        for (arguments, status, message) in cases {
            let p = try h.start(arguments)
            p.closeInput()
            #expect(try p.waitForExit() == status, "\(arguments)")
            #expect(p.standardError.contains(message), "\(arguments): \(p.standardError)")
        }
    }

    @Test func aSitePluginDeniesABatchLine_andTheDenialIsAudited() throws {
        let workingHours = EveryPluginEndToEndTests.examples.appendingPathComponent("working-hours.py").path
        let h = try BatchHome(
            site: """
                [[plugin]]
                name = "audit-log"

                [[plugin]]
                name = "external"
                command = ["python3", "\(workingHours)"]
                events = ["line"]
                timeout = "5s"
                settings = { from = "07:00", to = "19:00", now = "sun 03:00" }
                """ + TerminalHarness.unguarded
        )
        let script = try h.script(["find alvarez"])
        let p = try h.start([
            "--batch", script, "--user", "demo", "--password-file", h.passwordFile, "--format", "json",
        ])
        #expect(try p.waitForExit() == 1)
        let record = try #require(try objects(p.standardOutput).first)
        #expect(record["status"] as? String == "denied")
        #expect(p.standardError.contains("\(script):1: Records are closed outside working hours"))
        #expect(try h.auditRecords().contains { $0["kind"] as? String == "denied" })
    }
}
