import Foundation
import Glibc
import Testing

/// `ward config check` on the deployment, and the chain's required guards at a session's start.
@Suite struct DeploymentCheckEndToEndTests {
    /// A site whose one plugin is an external script: the default chain, and with it the audit
    /// log and the idle timer, are gone.
    static let externalOnly = "[[plugin]]\nname = \"external\"\ncommand = [\"/bin/cat\"]\n"

    static func chainMessages(_ site: String) -> String {
        """
        ward: \(site):1: the plugin chain has no 'audit-log', so nothing a session does would be audited. \
        Add a [[plugin]] with name = "audit-log", or, to run without it on purpose, write [chain] require = ["idle-timer"].
        ward: \(site):1: the plugin chain has no 'idle-timer', so a session left alone would never lock. \
        Add a [[plugin]] with name = "idle-timer", or, to run without it on purpose, write [chain] require = ["audit-log"].

        """
    }

    @Test func aChainWithoutTheGuards_isRefusedByTheCheck_andBeforeABatchSignsOn() throws {
        let h = try BatchHome(site: Self.externalOnly, patients: 1)
        let directory = URL(fileURLWithPath: h.directory.path)
        let check = try TerminalHarness.runToEnd(
            ["config", "check"],
            environment: h.environment,
            capturingIn: directory
        )
        #expect(check.status == 78)
        #expect(String(decoding: check.err, as: UTF8.self) == Self.chainMessages(h.site))

        let batch = try h.start(["--batch", "-", "--user", "demo", "--password-file", h.passwordFile])
        batch.send("find alvarez")
        batch.closeInput()
        #expect(try batch.waitForExit() == 78)
        #expect(batch.standardError == Self.chainMessages(h.site))
        #expect(batch.standardOutput.isEmpty)

        // The site says it means it: the check passes, and shows the requirement it read.
        try (Self.externalOnly + "\n[chain]\nrequire = []\n").write(toFile: h.site, atomically: true, encoding: .utf8)
        let accepted = try TerminalHarness.runToEnd(
            ["config", "check"],
            environment: h.environment,
            capturingIn: directory
        )
        #expect(accepted.status == 0, "\(String(decoding: accepted.err, as: UTF8.self))")
        #expect(String(decoding: accepted.out, as: UTF8.self).contains("[chain]    # line 5\nrequire = []\n"))
    }

    @Test func theCheck_reportsTheHomesOwnerAndMode_andRefusesOneOthersCanRead() throws {
        let h = try BatchHome(patients: 1)
        let directory = URL(fileURLWithPath: h.directory.path)
        let fine = try TerminalHarness.runToEnd(
            ["config", "check"],
            environment: h.environment,
            capturingIn: directory
        )
        #expect(fine.status == 0, "\(String(decoding: fine.err, as: UTF8.self))")
        let out = String(decoding: fine.out, as: UTF8.self)
        #expect(out.contains("# deployment, for the account running this check\n"))
        #expect(out.contains("# home \(h.home): \(SSHDaemon.currentUser)'s, mode 0700\n"))
        #expect(out.contains("# audit log \(h.home)/audit.jsonl: \(SSHDaemon.currentUser)'s, mode 0600\n"))

        chmod(h.home, 0o750)
        defer { chmod(h.home, 0o700) }
        let open = try TerminalHarness.runToEnd(
            ["config", "check"],
            environment: h.environment,
            capturingIn: directory
        )
        #expect(open.status == 78)
        let problem = String(decoding: open.err, as: UTF8.self)
        #expect(problem.hasPrefix("ward: \(h.home)") && problem.contains("chmod 700"))
    }

    @Test func anAuditLogInADirectoryEveryoneMayWrite_isAProblem() throws {
        let h = try BatchHome(patients: 1)
        let logs = h.directory.appendingPathComponent("logs").path
        mkdir(logs, 0o777)
        chmod(logs, 0o777)
        let site =
            "[[plugin]]\nname = \"idle-timer\"\n\n[[plugin]]\nname = \"audit-log\"\npath = \"\(logs)/audit.jsonl\"\n"
        try site.write(toFile: h.site, atomically: true, encoding: .utf8)
        let check = try TerminalHarness.runToEnd(
            ["config", "check"],
            environment: h.environment,
            capturingIn: URL(fileURLWithPath: h.directory.path)
        )
        #expect(check.status == 78)
        #expect(
            String(decoding: check.err, as: UTF8.self)
                == "ward: \(logs), the audit log's directory, may be written by everyone: anyone could replace the log (chmod o-w \(logs))\n"
        )
    }
}
