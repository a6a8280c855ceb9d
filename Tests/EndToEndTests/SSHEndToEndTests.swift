import Foundation
import Glibc
import Testing

/// Ward as the way in over SSH: a real sshd whose `ForceCommand` is the built `ward`.
@Suite(.serialized) struct SSHEndToEndTests {
    /// The guards, and batches allowed over SSH.
    static let site = """
        [[plugin]]
        name = "idle-timer"

        [[plugin]]
        name = "audit-log"

        [ssh]
        allow-commands = ["batch"]
        """

    /// A harness (alice, and `ward demo`'s patients and user `demo`) and an sshd in front of it.
    static func start(site: String = Self.site) throws -> (TerminalHarness, SSHDaemon)? {
        guard SSHDaemon.requirePrograms() else { return nil }
        let t = try TerminalHarness(["--version"], site: site)
        let environment = [
            "WARD_HOME": t.home.path, "WARD_SITE": t.siteFile.path, "HOME": t.directory.path, "LANG": "C.UTF-8",
        ]
        _ = try TerminalHarness.run(
            TerminalHarness.wardPath,
            ["demo", "--patients", "20", "--no-shell"],
            environment: environment
        )
        guard TerminalHarness.lastStatus == 0 else {
            throw TerminalHarness.HarnessError.failed("ward demo: exit \(TerminalHarness.lastStatus)")
        }
        let daemon = try SSHDaemon(environment: [
            "WARD_HOME": t.home.path, "WARD_SITE": t.siteFile.path,
            "XDG_CONFIG_HOME": t.directory.appendingPathComponent("config").path, "LANG": "C.UTF-8",
        ])
        return (t, daemon)
    }

    /// The home's audit records of `kind`.
    static func records(_ t: TerminalHarness, kind: String) throws -> [[String: Any]] {
        let text = try TerminalHarness.run(
            TerminalHarness.wardPath,
            ["audit", "show", "--kind", kind, "--format", "json"],
            environment: ["WARD_HOME": t.home.path, "WARD_SITE": t.siteFile.path, "HOME": t.directory.path]
        )
        return text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    @Test func aDroppedConnection_endsWard_withTheHangupAudited_andNothingLeftRunning() throws {
        guard let (t, daemon) = try Self.start() else { return }
        let window = "ssh\(UInt16.random(in: 0...UInt16.max))"
        try t.tmux(["new-window", "-d", "-n", window, SSHDaemon.ssh, "-tt"] + daemon.clientArguments())
        let pane = TerminalHarness.ShellPane(harness: t, target: window)
        try pane.waitFor("Username:")
        try pane.type(TerminalHarness.user)
        try pane.press("Enter")
        try pane.waitFor("Password for alice:")
        try pane.type(TerminalHarness.password)
        try pane.press("Enter")
        try pane.waitFor("ward>")
        try pane.type("open W0000011")
        try pane.press("Enter")
        try pane.waitFor("Opened W0000011")
        let ward = try #require(Int32(String(contentsOfFile: daemon.wardPIDFile, encoding: .utf8).trimmed))

        // The client dies without a word to the server, as a dropped line does.
        let client = try #require(Int32(t.tmux(["list-panes", "-t", window, "-F", "#{pane_pid}"]).trimmed))
        kill(client, SIGKILL)

        // sshd sees the connection close at once and hangs up the terminal: Ward ends within a second
        // or so (two, for a loaded machine).
        try Self.waitUntil("ward to exit", timeout: .seconds(2)) { kill(ward, 0) != 0 && errno == ESRCH }
        try Self.waitUntil("sshd's session processes to end") { daemon.sessionProcesses().isEmpty }
        let signOn = try #require(try Self.records(t, kind: "sign-on").last)
        #expect(signOn["via"] as? String == "ssh")
        #expect(signOn["peer"] as? String == "127.0.0.1")
        #expect(try Self.records(t, kind: "access").last?["mrn"] as? String == "W0000011")
        #expect(try Self.records(t, kind: "signal").last?["signal"] as? String == "SIGHUP")
        #expect(try Self.records(t, kind: "sign-off").last?["how"] as? String == "hangup")
    }

    @Test func aCommandThatIsNotWard_isRefusedWith77_runsNothing_andIsAudited() throws {
        guard let (t, daemon) = try Self.start() else { return }
        let result = try daemon.run("cat /etc/passwd")
        #expect(result.status == 77)
        #expect(!result.out.contains("root:"))
        #expect(result.err.contains("ward: refused the command given over SSH: this account runs only Ward"))
        let record = try #require(try Self.records(t, kind: "ssh-command").last)
        #expect(record["reason"] as? String == "not-ward")
        #expect(record["peer"] as? String == "127.0.0.1")
        #expect(record["outcome"] as? String == "failed" && record["status"] as? Int == 77)
        #expect(!String(describing: record).contains("passwd"))  // never the command's text

        let shell = try daemon.run("ward --version; cat /etc/passwd")
        #expect(shell.status == 77)
        #expect(shell.err.contains("it holds ';', which Ward does not interpret"))
        #expect(try Self.records(t, kind: "ssh-command").last?["reason"] as? String == "unreadable")

        let home = try daemon.run("ward -c 'find alvarez' --user demo --password-fd 0 --home /tmp", input: "demo\n")
        #expect(home.status == 77)
        #expect(home.err.contains("--home, --site and --password-file are not allowed over SSH"))
    }

    @Test func aSiteWithoutSSHCommands_refusesEvenABatch() throws {
        guard
            let (t, daemon) = try Self.start(
                site: "[[plugin]]\nname = \"idle-timer\"\n\n[[plugin]]\nname = \"audit-log\"\n"
            )
        else { return }
        let result = try daemon.run("ward -c 'find alvarez' --user demo --password-fd 0", input: "demo\n")
        #expect(result.status == 77)
        #expect(result.err.contains("allows no command over SSH ([ssh] allow-commands)"))
        #expect(!result.out.contains("Alvarez"))
        #expect(try Self.records(t, kind: "ssh-command").last?["reason"] as? String == "not-allowed")
    }

    @Test func anAllowedBatch_runsWithThePasswordFromTheConnection() throws {
        guard let (t, daemon) = try Self.start() else { return }
        let one = try daemon.run("ward -c 'find alvarez' --user demo --password-fd 0", input: "demo\n")
        #expect(one.status == 0, "\(one.err)")
        #expect(one.out.contains("Alvarez"))

        let script = try daemon.run(
            "ward --batch - --user demo --password-fd=0 --format json",
            input: "demo\nopen W0000011\nwhoami\n"
        )
        #expect(script.status == 0, "\(script.err)")
        #expect(script.out.split(separator: "\n").count == 2)
        #expect(script.out.contains("W0000011"))

        let wrong = try daemon.run("ward -c whoami --user demo --password-fd 0", input: "not it\n")
        #expect(wrong.status == 77)

        let allowed = try Self.records(t, kind: "ssh-command")
        #expect(allowed.count == 3 && allowed.allSatisfy { $0["allowed"] as? String == "batch" })
        #expect(try Self.records(t, kind: "sign-on").count == 2)
    }

    static func waitUntil(_ what: String, timeout: Duration = .seconds(5), _ probe: () -> Bool) throws {
        try eventually(what, timeout: timeout, probe)
    }
}

/// Ward started as a login shell, or with `SSH_ORIGINAL_COMMAND`, without a daemon.
@Suite struct LoginShellEntryTests {
    /// Runs the built ward with `argv0` as its name; status and standard error.
    static func run(argv0: String, _ arguments: [String], environment: [String: String]) throws -> (Int32, String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ward-login-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let errPath = directory.appendingPathComponent("err").path
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv = ([argv0] + arguments).map { strdup($0) } + [nil]
        defer { for arg in argv { free(arg) } }
        let env = environment.map { strdup("\($0)=\($1)") } + [nil]
        defer { for entry in env { free(entry) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, TerminalHarness.wardPath, &actions, nil, argv, env) == 0 else {
            throw TerminalHarness.HarnessError.failed("cannot start ward")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return ((status >> 8) & 0xFF, (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "")
    }

    @Test func aLoginShell_ignoresItsArguments_asWardWithNone() throws {
        let (status, err) = try Self.run(argv0: "-ward", ["--version"], environment: ["HOME": "/nonexistent"])
        // No terminal: ward alone reads standard input as a script, which needs --user.
        #expect(status == 64)
        #expect(err.contains("standard input is not a terminal"))
    }

    @Test func anOriginalCommand_withoutArguments_isRefusedWith77_beforeAnythingIsRead() throws {
        let (status, err) = try Self.run(
            argv0: "ward",
            [],
            environment: ["HOME": "/nonexistent", "SSH_ORIGINAL_COMMAND": "sh -i", "WARD_HOME": "/nonexistent/home"]
        )
        #expect(status == 77)
        #expect(err.contains("refused the command given over SSH"))
    }
}

extension String {
    fileprivate var trimmed: String { trimmingCharacters(in: .whitespacesAndNewlines) }
}
