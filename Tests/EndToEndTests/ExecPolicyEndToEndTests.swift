import Foundation
import Glibc
import Testing

/// The site's rules for a wrapped program as the real binary applies them before anyone signs
/// on: `ward config check`'s warnings and errors for `[exec]`, and `ward exec`'s refusal of an
/// argument the program's `user-args` does not allow.
@Suite struct ExecPolicyEndToEndTests {
    static let chain = "[[plugin]]\nname = \"audit-log\"\n" + TerminalHarness.unguarded

    @Test func configCheck_warnsOfASandboxTurnedOff_andOfRecordArguments() throws {
        let h = try BatchHome(
            site: Self.chain + """

                [exec]
                record-arguments = true
                allow = [
                    { program = "sqlite3", args = ["-safe"], user-args = "files", read = ["/srv/extracts"] },
                    { program = "python3", sandbox = "off" },
                ]

                """
        )
        let check = try TerminalHarness.runToEnd(
            ["config", "check"],
            environment: h.environment,
            capturingIn: URL(fileURLWithPath: h.directory.path)
        )
        #expect(check.status == 0, "\(String(decoding: check.err, as: UTF8.self))")
        // Only these two: the deployment's own warnings depend on who runs the test.
        let prefix = "ward: \(h.site):"
        let warnings: [String] = String(decoding: check.err, as: UTF8.self).split(separator: "\n")
            .filter { $0.hasPrefix(prefix) && $0.contains(": warning: ") }.map(String.init)
        let recordArguments: String =
            prefix + "8: warning: 'record-arguments' no longer does anything: exec-start always records "
            + "the program's arguments (sanitized); remove the key."
        let sandboxOff: String =
            prefix + "11: warning: \"python3\" runs outside the sandbox (sandbox = \"off\"): it may start "
            + "any program and read or write whatever the Ward account can, the records, the credential store "
            + "and the audit log included; see ward-site.toml(5), THE [exec] TABLE."
        #expect(warnings == [recordArguments, sandboxOff])
        let out = String(decoding: check.out, as: UTF8.self)
        #expect(out.contains("\n[exec.commands.\"python3\"]\n"))
        #expect(out.contains("args = [\"-safe\"]\nuser-args = \"files\"\nread = [\"/srv/extracts\"]\n"))
        #expect(out.contains("sandbox = \"off\"\n"))
    }

    @Test func configCheck_refusesAPathThatHoldsTheHome_andAHelperNotInstalled() throws {
        let h = try BatchHome(site: Self.chain)
        let exec = """

            [exec]
            allow = ["sqlite3"]
            read = ["\(h.directory.path)"]
            may-run = ["/usr/bin/no-such-helper"]

            """
        try (Self.chain + exec).write(toFile: h.site, atomically: true, encoding: .utf8)
        let check = try TerminalHarness.runToEnd(
            ["config", "check"],
            environment: h.environment,
            capturingIn: URL(fileURLWithPath: h.directory.path)
        )
        #expect(check.status == 78)
        let err = String(decoding: check.err, as: UTF8.self)
        let read = "ward: \(h.site):9: 'read' holds \"\(h.directory.path)\", which holds"
        #expect(err.contains(read + " the Ward home \(h.home): a wrapped program never reaches the Ward home"))
        #expect(err.contains(read + " the site file \(h.site): "))
        #expect(err.contains("ward: \(h.site):10: 'may-run' holds \"/usr/bin/no-such-helper\", which is not"))
    }

    @Test func exec_refusesAnArgumentTheSiteDoesNotAllow_with77_beforeSignOn() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ward-exec-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let site = directory.appendingPathComponent("site.toml")
        try """
        [exec]
        allow = [
            { program = "sqlite3", args = ["-safe"], user-args = "files", read = ["\(directory.path)/extracts"] },
            { program = "bash", user-args = "none" },
        ]
        """.write(to: site, atomically: true, encoding: .utf8)
        let env = [
            "WARD_HOME": directory.appendingPathComponent("home").path, "WARD_SITE": site.path, "HOME": directory.path,
        ]
        func run(_ command: String...) throws -> (status: Int32, err: String) {
            let result = try TerminalHarness.runToEnd(
                ["exec", "--"] + command,
                environment: env,
                capturingIn: directory
            )
            return (result.status, String(decoding: result.err, as: UTF8.self))
        }

        let option = try run("sqlite3", "-cmd", ".shell bash", ":memory:")
        #expect(option.status == 77)
        #expect(
            option.err
                == "ward: sqlite3: the argument '-cmd' is not allowed: the site lets you add only names of files "
                + "(user-args = \"files\"), not options.\n"
        )
        let outside = try run("sqlite3", "/etc/passwd")
        #expect(outside.status == 77)
        #expect(outside.err.hasPrefix("ward: sqlite3: the argument '/etc/passwd' is not allowed: it is /etc/passwd,"))
        let none = try run("bash", "-c", "id")
        #expect(none.status == 77)
        #expect(
            none.err
                == "ward: bash: the argument '-c' is not allowed: the site fixes bash's arguments "
                + "(user-args = \"none\"); run it without any.\n"
        )
        // Allowed arguments get as far as the terminal check.
        #expect(try run("bash").status == 64)
    }
}
