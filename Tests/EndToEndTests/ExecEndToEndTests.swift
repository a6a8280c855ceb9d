import Foundation
import Glibc
import Testing

/// `ward exec` in the real binary, in tmux, wrapping the real sqlite3, python3 and bash, with
/// real short timeouts (a second or two).
@Suite(.serialized) struct ExecEndToEndTests {
    /// A site allowing `allow`, locking after `idle`, with the audit log; `extra` is appended.
    static func site(allow: [String], idle: String = "60s", extra: String = "") -> String {
        """
        [session]
        idle-timeout = "\(idle)"
        warn-before = "0s"

        [exec]
        allow = [\(allow.map { "\"\($0)\"" }.joined(separator: ", "))]

        \(extra)

        [[plugin]]
        name = "idle-timer"

        [[plugin]]
        name = "audit-log"
        """
    }

    /// Starts `ward exec --user alice -- COMMAND` and answers the password prompt.
    static func start(_ command: [String], site: String) throws -> TerminalHarness {
        try requirePrograms(command[0])
        let t = try TerminalHarness(["exec", "--user", TerminalHarness.user, "--"] + command, site: site)
        try t.waitFor("Password for alice:")
        try t.enter(TerminalHarness.password)
        return t
    }

    /// A missing program fails the test naming its Debian package, never skips it.
    static func requirePrograms(_ names: String...) throws {
        let packages = ["sqlite3": "sqlite3", "python3": "python3", "bash": "bash", "tmux": "tmux"]
        for name in names + ["tmux"] where !["/usr/bin/", "/bin/"].contains(where: { access($0 + name, X_OK) == 0 }) {
            Issue.record("\(name) is missing: install the Debian package \(packages[name] ?? name).")
            throw TerminalHarness.HarnessError.failed("no \(name)")
        }
    }

    /// The program Ward runs: Ward's only child.
    static func childPID(_ t: TerminalHarness) throws -> Int32 {
        let ward = try t.wardPID()
        return try eventually("a child of ward", timeout: .seconds(5)) {
            try TerminalHarness.run("/usr/bin/pgrep", ["-P", "\(ward)"]).split(separator: "\n").first
                .flatMap { Int32($0) }
        }
    }

    /// The state letter of `/proc/PID/stat` (R, S, T…), nil once the process is gone.
    static func state(_ pid: Int32) -> String? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        return stat[stat.index(close, offsetBy: 2)...].split(separator: " ").first.map(String.init)
    }

    static func waitUntil(_ what: String, timeout: Duration = .seconds(5), _ condition: () -> Bool) throws {
        try eventually(what, timeout: timeout, condition)
    }

    /// The session's audit records as `kind` and the record's JSON line; not the administrative
    /// records of the harness's own setup (`ward user add`).
    static func audit(_ t: TerminalHarness) throws -> [(kind: String, line: String)] {
        let env = ["WARD_HOME": t.home.path, "WARD_SITE": t.siteFile.path, "HOME": t.directory.path]
        let show = try TerminalHarness.run(
            TerminalHarness.wardPath,
            ["audit", "show", "--format", "json"],
            environment: env
        )
        return show.split(separator: "\n").compactMap { line in
            guard !line.contains("\"unix_user\":"), let range = line.range(of: "\"kind\":\"") else { return nil }
            return (String(line[range.upperBound...].prefix { $0 != "\"" }), String(line))
        }
    }

    @Test func sqlite3_queryShows_idleLockClearsAndFreezes_unlockResumes() throws {
        let t = try Self.start(["sqlite3"], site: Self.site(allow: ["sqlite3"], idle: "2s"))
        try t.waitFor("sqlite>")
        // A trailing ';' would end tmux's command: the space after it keeps it in the text.
        try t.enter("select 'zebra' || 'fish'; ")
        try t.waitFor("zebrafish")
        let child = try Self.childPID(t)
        try t.waitFor("Ward is locked: no activity. Signed on as alice.", timeout: .seconds(5))
        #expect(!(try t.screenAndScrollback()).contains("zebrafish"))
        #expect(Self.state(child) == "T")  // frozen: SIGSTOP

        try t.unlock()
        try t.waitFor("sqlite>")  // thawed and redrawn
        #expect(Self.state(child) != "T")
        try t.enter("select 'second' || 'query'; ")
        try t.waitFor("secondquery")
        #expect(try Self.childPID(t) == child)
        try t.enter(".quit")
        #expect(try t.waitForExit() == 0)
        #expect(isCooked(try t.terminalModeAfterExit()))

        let records = try Self.audit(t)
        #expect(
            records.map(\.kind) == ["sign-on", "exec-start", "lock", "unlock", "exec-exit", "sign-off"]
        )
        #expect(records.first { $0.kind == "exec-start" }?.line.contains("\"path\":\"/usr/bin/sqlite3\"") == true)
        #expect(records.first { $0.kind == "exec-exit" }?.line.contains("\"status\":0") == true)
        #expect(records.first { $0.kind == "sign-off" }?.line.contains("\"how\":\"program-exited\"") == true)
        #expect(!records.contains { $0.line.contains("zebra") })  // typed text is not recorded by default
    }

    @Test func python3_onLockKill_aFreshProgramRunsAfterUnlocking() throws {
        let t = try Self.start(
            ["python3", "-q"],
            site: Self.site(
                allow: ["python3"],
                idle: "2s",
                extra: "[exec.commands.python3]\non-lock = \"kill\"\nrecord-input = true\n"
            )
        )
        try t.waitFor(">>>")
        try t.enter("print('otter' + 'pup')")
        try t.waitFor("otterpup")
        let first = try Self.childPID(t)
        try t.waitFor("Ward is locked: no activity.", timeout: .seconds(5))
        #expect(!(try t.screenAndScrollback()).contains("otterpup"))
        try Self.waitUntil("the first python3 to end") { Self.state(first) == nil }

        try t.unlock()
        try t.waitFor(">>>")
        let second = try Self.childPID(t)
        #expect(second != first)
        try t.enter("print(6 * 7)")
        try t.waitFor("42")
        try t.enter("raise SystemExit(3)")
        #expect(try t.waitForExit() == 3)  // the program's status is Ward's

        let records = try Self.audit(t)
        #expect(records.filter { $0.kind == "exec-start" }.count == 2)
        #expect(records.filter { $0.kind == "exec-exit" }.count == 2)
        #expect(records.contains { $0.kind == "input" && $0.line.contains("print(6 * 7)") })  // record-input
        #expect(records.last?.kind == "sign-off")
    }

    @Test func bash_followsTheWindowSize_andALockKeyLocksAtOnce() throws {
        let t = try Self.start(["bash", "--norc", "--noprofile"], site: Self.site(allow: ["bash"]))
        try t.waitFor("bash-")
        // Builtins only: the sandbox lets bash start no program (ExecSandboxEndToEndTests).
        try t.enter("echo size $LINES $COLUMNS")
        try t.waitFor("size 30 100")
        try t.resize(columns: 90, rows: 25)
        // Ward passes the new size on to the program's terminal: wait until that terminal has it.
        let tty = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(try Self.childPID(t))/fd/0")
        try eventually("the program's terminal to be 25 rows of 90") {
            try TerminalHarness.run("/usr/bin/stty", ["-F", tty, "size"]) == "25 90\n"
        }
        try t.enter("echo size $LINES $COLUMNS")
        try t.waitFor("size 25 90")

        try t.enter("echo lock-me")
        try t.waitFor("lock-me")
        try t.press("C-\\", "C-\\")  // the default lock key
        try t.waitFor("Ward is locked: locked by the user.")
        #expect(!(try t.screenAndScrollback()).contains("lock-me"))
        try t.unlock()
        try t.enter("exit 5")
        #expect(try t.waitForExit() == 5)
    }

    @Test func bash_ctrlZStopsWardAndItsProgram_fgBringsThemBack() throws {
        try Self.requirePrograms("bash")
        let t = try TerminalHarness(["--version"], site: Self.site(allow: ["bash"]))
        _ = try t.waitForExit()
        let shell = try TerminalHarness.runShellPane(t)
        try shell.type(
            TerminalHarness.shellQuote(TerminalHarness.wardPath) + " exec --user alice -- bash --norc --noprofile"
        )
        try shell.press("Enter")
        try shell.waitFor("Password for alice:")
        try shell.type(TerminalHarness.password)
        try shell.press("Enter")
        try shell.type("echo inner-$((6*7))")
        try shell.press("Enter")
        try shell.waitFor("inner-42")
        try shell.press("C-z")
        try shell.waitFor("Stopped")
        #expect(!(try shell.screen()).contains("inner-42"))
        try shell.type("fg")
        try shell.press("Enter")
        try shell.type("echo back-$((2+3))")
        try shell.press("Enter")
        try shell.waitFor("back-5")
        try shell.type("exit")
        try shell.press("Enter")
        try shell.waitFor("Signed off.")
    }

    @Test func ctrlDAtTheLockScreen_endsTheFrozenProgram_onRecord() throws {
        let t = try Self.start(["sqlite3"], site: Self.site(allow: ["sqlite3"]))
        try t.waitFor("sqlite>")
        let child = try Self.childPID(t)
        try t.press("C-\\", "C-\\")
        try t.waitFor("Ward is locked: locked by the user.")
        try Self.waitUntil("the program to be stopped") { Self.state(child) == "T" }
        try t.press("C-d")
        #expect(try t.waitForExit() == 0)
        #expect(Self.state(child) == nil)
        let records = try Self.audit(t)
        #expect(records.map(\.kind) == ["sign-on", "exec-start", "lock", "exec-exit", "sign-off"])
        #expect(records[3].line.contains("\"status\":129"))  // SIGHUP, continued to act on it
    }

    @Test func hangup_endsTheProgram_andSignsOff_onRecord() throws {
        let t = try Self.start(["bash", "--norc", "--noprofile"], site: Self.site(allow: ["bash"]))
        try t.waitFor("bash-")
        let child = try Self.childPID(t)
        try t.tmux(["kill-pane"])
        try Self.waitUntil("the program to end") { Self.state(child) == nil }
        try Self.waitUntil("the sign-off record") { (try? Self.audit(t).last?.kind) == "sign-off" }
        let records = try Self.audit(t)
        #expect(records.map(\.kind) == ["sign-on", "exec-start", "signal", "exec-exit", "sign-off"])
        #expect(records.last?.line.contains("\"how\":\"hangup\"") == true)
    }

    @Test func aDeniedLine_neverRuns() throws {
        let plugin = FileManager.default.temporaryDirectory.appendingPathComponent("ward-deny-\(UUID().uuidString).py")
        try """
        import json, sys
        for raw in sys.stdin:
            m = json.loads(raw)
            if m.get("type") == "hello":
                print(json.dumps({"id": 0, "protocol": "2.0"}), flush=True)
            if m.get("type") != "event":
                continue
            e = m.get("event") or {}
            r = {"action": "continue"}
            if e.get("kind") == "line" and "drop" in e.get("text", "").lower():
                r = {"action": "deny", "message": "no DROP here"}
            r["id"] = m["id"]
            print(json.dumps(r), flush=True)
        """.write(to: plugin, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: plugin) }
        let t = try Self.start(
            ["sqlite3"],
            site: Self.site(
                allow: ["sqlite3"],
                extra:
                    "[[plugin]]\nname = \"external\"\ncommand = [\"python3\", \"\(plugin.path)\"]\nevents = [\"line\"]\n"
            )
        )
        try t.waitFor("sqlite>")
        try t.enter("create table t(x); ")
        try t.enter("drop table t; ")
        try t.waitFor("ward: no DROP here")
        try t.enter("select 'rows:' || count(*) from t; ")
        try t.waitFor("rows:0")  // the table is still there
        try t.enter(".quit")
        #expect(try t.waitForExit() == 0)
        let denied = try Self.audit(t).filter { $0.kind == "denied" }
        #expect(denied.count == 1)
        #expect(denied.first?.line.contains("no DROP here") == true)
        #expect(denied.first?.line.contains("drop table") == false)  // typed text only with record-input
    }

    @Test func aProgramNotAllowed_exits77_beforeSignOn_andNoTerminalExits64() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ward-exec-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let site = directory.appendingPathComponent("site.toml")
        try "[exec]\nallow = [\"sqlite3\"]\n".write(to: site, atomically: true, encoding: .utf8)
        let env = [
            "WARD_HOME": directory.appendingPathComponent("home").path, "WARD_SITE": site.path, "HOME": directory.path,
        ]

        let refused = try TerminalHarness.runToEnd(["exec", "--", "python3"], environment: env, capturingIn: directory)
        #expect(refused.status == 77)
        #expect(
            String(decoding: refused.err, as: UTF8.self)
                == "ward: 'python3' is not allowed by \(site.path):1 ([exec] allow: \"sqlite3\"). Ask the site to add it.\n"
        )
        let script = try TerminalHarness.runToEnd(["exec", "--", "sqlite3"], environment: env, capturingIn: directory)
        #expect(script.status == 64)
        #expect(String(decoding: script.err, as: UTF8.self).contains("ward exec needs a terminal"))

        try "".write(to: site, atomically: true, encoding: .utf8)
        let none = try TerminalHarness.runToEnd(["exec", "--", "sqlite3"], environment: env, capturingIn: directory)
        #expect(none.status == 77)
        #expect(String(decoding: none.err, as: UTF8.self).contains("allows no program"))
    }
}
