import Foundation
import Testing

/// `ward -c COMMAND`: one shell command, psql-style, signed on as a batch is, exiting with the
/// command's status.
@Suite(.serialized) struct OneCommandEndToEndTests {
    @Test func oneCommand_runs_andExitsWithItsStatus() throws {
        let h = try BatchHome()
        let ok = try h.start(["-c", "find alvarez", "--user", "demo", "--password-file", h.passwordFile])
        ok.closeInput()
        #expect(try ok.waitForExit() == 0)
        #expect(ok.standardOutput.contains("W0000011  Alvarez, Brandon"))

        let failed = try h.start(["-c", "open W9999999", "--user", "demo", "--password-file", h.passwordFile])
        failed.closeInput()
        #expect(try failed.waitForExit() == 1)
        #expect(failed.standardError.contains("-c:1: "))

        let json = try h.start(
            ["-c", "whoami", "--user", "demo", "--password-fd", "3", "--format", "json"],
            passwordOnDescriptor3: "demo\n"
        )
        json.closeInput()
        #expect(try json.waitForExit() == 0)
        let object = try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any]
        #expect(object?["status"] as? String == "ok")
        #expect(object?["messages"] as? [String] == ["demo (clinician)"])

        let commands = try h.auditRecords().filter { $0["kind"] as? String == "command" }
        #expect(commands.map { $0["source"] as? String } == Array(repeating: "batch:-c:1", count: 3))
        #expect(try h.verifyAudit() == 0)
    }

    @Test func usageErrors_exit64_havingRunNothing() throws {
        let h = try BatchHome()
        let script = try h.script(["whoami"])
        let cases: [([String], String)] = [
            (["-c", "whoami", "--password-file", h.passwordFile], "-c needs --user NAME"),
            (["-c", "whoami", "--user", "demo"], "-c needs the password from --password-fd N or --password-file PATH"),
            (
                ["-c", "whoami\nlogout", "--user", "demo", "--password-file", h.passwordFile],
                "one command, on one line"
            ),
            (["-c", "whoami", "--batch", script, "--user", "demo", "--password-file", h.passwordFile], "not both"),
        ]
        for (arguments, message) in cases {
            let p = try h.start(arguments)
            p.closeInput()
            #expect(try p.waitForExit() == 64, "\(arguments)")
            #expect(p.standardError.contains(message), "\(arguments): \(p.standardError)")
        }
        #expect(try h.auditRecords().isEmpty)
    }
}
