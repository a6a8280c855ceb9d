import Foundation
import Glibc
import Testing

/// The attack `ward exec` must stop, replayed on the real binary in tmux: an allowed sqlite3 or
/// bash trying to start a shell, read Ward's home and /etc/shadow, and leave jobs behind that
/// write to the terminal after the lock and outlive the session.
@Suite(.serialized) struct ExecSandboxEndToEndTests {
    typealias Exec = ExecEndToEndTests

    /// The exec-denied records' paths.
    static func deniedPaths(_ records: [(kind: String, line: String)]) -> [String] {
        records.filter { $0.kind == "exec-denied" }.compactMap { record in
            record.line.range(of: "\"path\":\"").map { String(record.line[$0.upperBound...].prefix { $0 != "\"" }) }
        }
    }

    /// The first number right after `prefix` on the screen, once it shows (the typed command
    /// holds the prefix too, before a `$`).
    static func number(after prefix: String, on t: TerminalHarness) throws -> Int32 {
        try eventually("\(prefix)N on the screen") {
            let screen = try t.screenAndScrollback()
            var rest = screen[...]
            while let range = rest.range(of: prefix) {
                rest = rest[range.upperBound...]
                if let number = Int32(rest.prefix { $0.isNumber }) { return number }
            }
            return nil
        }
    }

    @Test func sqlite3_cannotStartAShell_norReadWardsFilesOrShadow_andTheLogSaysWhatRan() throws {
        let t = try TerminalHarness(["--version"], site: Exec.site(allow: ["sqlite3"]))
        _ = try t.waitForExit()
        let records = t.home.appendingPathComponent("records.sqlite").path
        _ = try TerminalHarness.run("/usr/bin/sqlite3", [records, "create table c(x); insert into c values('chart')"])
        chmod(records, 0o600)
        let credentials = t.home.appendingPathComponent("credentials").path
        #expect(FileManager.default.fileExists(atPath: credentials))

        // The attack as it was first made: a shell from -cmd, before the first prompt.
        let s = try TerminalHarness(
            [
                "exec", "--user", TerminalHarness.user, "--", "sqlite3", "-readonly", "-cmd",
                ".shell echo pwned-$((6*7))",
                ":memory:",
            ],
            sharing: t
        )
        try s.waitFor("Password for alice:")
        try s.enter(TerminalHarness.password)
        try s.waitFor("sqlite>")
        try s.enter(".shell echo shell-$((6*7))")
        try s.enter(".system echo system-$((6*7))")
        try s.enter("ATTACH '\(records)' AS r; ")
        try s.waitFor("unable to open database")
        try s.enter("select 'credentials:' || coalesce(length(readfile('\(credentials)')), 'none'); ")
        try s.enter("select 'shadow:' || coalesce(length(readfile('/etc/shadow')), 'none'); ")
        try s.enter("select 'passwd:' || (length(readfile('/etc/passwd')) > 0); ")  // readfile itself works
        try s.waitFor("passwd:1")
        let screen = try s.screenAndScrollback()
        #expect(screen.contains("credentials:none"))
        #expect(screen.contains("shadow:none"))
        for escaped in ["pwned-42", "shell-42", "system-42"] { #expect(!screen.contains(escaped)) }
        try s.enter(".quit")
        _ = try s.waitForExit()  // sqlite3's own status: 1 after the errors above

        let audit = try Exec.audit(s)
        let start = try #require(audit.first { $0.kind == "exec-start" }?.line)
        #expect(start.contains("\"arguments\":\"-readonly -cmd '.shell echo pwned-$((6*7))' :memory:\""))
        #expect(start.contains("\"sandbox\":\"landlock "))
        #expect(start.contains(", seccomp\""))
        let denied = Self.deniedPaths(audit)
        #expect(denied.count >= 3)  // -cmd's .shell, .shell, .system: each through /bin/sh
        #expect(denied.allSatisfy { $0 == "/bin/sh" })
        #expect(!audit.contains { $0.line.contains("chart") })
    }

    @Test func bash_startsNothing_andItsLoopAndALeftBehindJob_areFrozenAtLock_andEndedAtSignOff() throws {
        let t = try Exec.start(["bash", "--norc", "--noprofile"], site: Exec.site(allow: ["bash"]))
        try t.waitFor("bash-")
        try t.enter("setsid bash -c 'echo escaped-$((6*7))' ")
        try t.waitFor("Operation not permitted")
        // A sleep without a program: a read that waits on a coprocess that never writes.
        let pause = "coproc W { read -r; }; "
        try t.enter("( \(pause)while :; do echo tick-$BASHPID; read -t 1 -u ${W[0]}; done ) &")
        let loop = try Self.number(after: "tick-", on: t)
        // Left behind: its parent ends at once, so it becomes Ward's (the subreaper's) child.
        try t.enter("( ( \(pause)echo left-$BASHPID; while :; do read -t 1 -u ${W[0]}; done ) & ) ")
        let left = try Self.number(after: "left-", on: t)
        #expect(ProcessTableView.parent(of: left) == (try t.wardPID()))

        try t.press("C-\\", "C-\\")
        try t.waitFor("Ward is locked: locked by the user.")
        try Exec.waitUntil("the loop and the left-behind job to be stopped") {
            Exec.state(loop) == "T" && Exec.state(left) == "T"
        }
        #expect(!(try t.screenAndScrollback()).contains("tick-"))
        try t.unlock()
        try Exec.waitUntil("the loop to run again") { Exec.state(loop) != "T" }
        try t.enter("exit 4")
        #expect(try t.waitForExit() == 4)
        try Exec.waitUntil("nothing of the session to be left") { Exec.state(loop) == nil && Exec.state(left) == nil }
        #expect(!(try t.screenAndScrollback()).contains("escaped-42"))

        let audit = try Exec.audit(t)
        #expect(Self.deniedPaths(audit).contains("/usr/bin/setsid"))
        #expect(audit.map(\.kind).suffix(2) == ["exec-exit", "sign-off"])
    }

    @Test func python3_aSetsidJob_cannotOpenWardsTerminal_isStoppedAtLock_andEndedAtSignOff() throws {
        let script = """
            import os, sys, time
            def leak(tty):
                if os.fork() == 0:
                    os.setsid()
                    try:
                        os.write(os.open(tty, os.O_WRONLY), b'LEAKED\\n')
                    except OSError as error:
                        print('tty-refused-%d' % error.errno, flush=True)
                    n = 0
                    while True:
                        print('leak-%d-%d' % (os.getpid(), n), flush=True)
                        n += 1
                        time.sleep(0.3)
            """
        let t = try Exec.start(["python3", "-q", "-i", "-c", script], site: Exec.site(allow: ["python3"]))
        try t.waitFor(">>>")
        let wardTerminal = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(try t.wardPID())/fd/0")
        try t.enter("leak('\(wardTerminal)')")
        try t.waitFor("tty-refused-13")  // EACCES: Landlock, though Ward's user may open it
        let job = try Self.number(after: "leak-", on: t)

        try t.press("C-\\", "C-\\")
        try t.waitFor("Ward is locked: locked by the user.")
        try Exec.waitUntil("the setsid job to be stopped") { Exec.state(job) == "T" }
        #expect(!(try t.screen()).contains("leak-"))
        try t.unlock()
        try t.waitFor("leak-\(job)-")
        try t.enter("raise SystemExit(0)")
        #expect(try t.waitForExit() == 0)
        try Exec.waitUntil("the setsid job to be ended") { Exec.state(job) == nil }
        #expect(!(try t.screenAndScrollback()).contains("LEAKED"))
    }

    /// A site file whose `[exec]` allow list is `entries` as written (inline tables).
    static func site(entries: String) -> String {
        Exec.site(allow: []).replacingOccurrences(of: "allow = []", with: "allow = [\(entries)]")
    }

    @Test func aHelperInMayRun_runs_andNothingElse() throws {
        let t = try Exec.start(
            ["bash", "--norc", "--noprofile"],
            site: Self.site(entries: "{ program = \"bash\", may-run = [\"/usr/bin/stty\"] }")
        )
        try t.waitFor("bash-")
        try t.enter("/usr/bin/stty size")
        try t.waitFor("30 100")
        try t.enter("/usr/bin/ls /")
        try t.waitFor("/usr/bin/ls: Operation not permitted")
        try t.enter("exit 0")
        #expect(try t.waitForExit() == 0)
        let audit = try Exec.audit(t)
        #expect(Self.deniedPaths(audit) == ["/usr/bin/ls"])
        #expect(audit.first { $0.kind == "exec-start" }?.line.contains("\"may-run\":\"/usr/bin/stty\"") == true)
    }

    @Test func theManPagesExample_sqlite3WritesItsExtract_andItsOwnShellEscapeIsOff() throws {
        let probe = try TerminalHarness(["--version"], site: Exec.site(allow: ["sqlite3"]))
        _ = try probe.waitForExit()
        let extracts = probe.directory.appendingPathComponent("extracts")
        try FileManager.default.createDirectory(at: extracts, withIntermediateDirectories: true)
        let entry =
            "{ program = \"sqlite3\", args = [\"-safe\"], user-args = \"files\", write = [\"\(extracts.path)\"] }"
        let database = extracts.appendingPathComponent("ward.db").path
        let t = try TerminalHarness(
            ["exec", "--user", TerminalHarness.user, "--", "sqlite3", database],
            site: Self.site(entries: entry)
        )
        try t.waitFor("Password for alice:")
        try t.enter(TerminalHarness.password)
        try t.waitFor("sqlite>")
        try t.enter("create table extract(x); insert into extract values ('kept'); ")
        try t.enter(".shell echo shell-$((6*7))")
        try t.waitFor("cannot run .shell in safe mode")
        try t.enter(".quit")
        _ = try t.waitForExit()
        #expect(try TerminalHarness.run("/usr/bin/sqlite3", [database, "select x from extract"]) == "kept\n")
        #expect(!(try t.screenAndScrollback()).contains("shell-42"))
    }

    @Test func sandboxOff_runsOnAKernelWithoutLandlock_withWardsRights_andTheLogSaysOff() throws {
        let t = try TerminalHarness(
            ["exec", "--user", TerminalHarness.user, "--", "bash", "--norc", "--noprofile"],
            site: Self.site(entries: "{ program = \"bash\", sandbox = \"off\" }"),
            environment: ["WARD_SANDBOX_PROBE": "fail"]
        )
        try t.waitFor("Password for alice:")
        try t.enter(TerminalHarness.password)
        try t.waitFor("bash-")
        try t.enter("stty size")
        try t.waitFor("30 100")
        try t.enter("exit")
        #expect(try t.waitForExit() == 0)
        let audit = try Exec.audit(t)
        #expect(audit.first { $0.kind == "exec-start" }?.line.contains("\"sandbox\":\"off\"") == true)
        #expect(Self.deniedPaths(audit).isEmpty)
    }

    @Test func wardKilledOutright_takesItsProgramWithIt() throws {
        let t = try Exec.start(["sqlite3"], site: Exec.site(allow: ["sqlite3"]))
        try t.waitFor("sqlite>")
        let program = try Exec.childPID(t)
        kill(try t.wardPID(), SIGKILL)
        try Exec.waitUntil("the program to end with Ward") { Exec.state(program) == nil || Exec.state(program) == "Z" }
    }

    @Test func aReadPathThatHoldsTheHome_isRefusedBySessionsToo_with78() throws {
        let probe = try TerminalHarness(["--version"], site: Exec.site(allow: ["sqlite3"]))
        _ = try probe.waitForExit()
        let site = Self.site(entries: "{ program = \"sqlite3\", read = [\"\(probe.directory.path)\"] }")
        try site.write(to: probe.siteFile, atomically: true, encoding: .utf8)
        let env = ["WARD_HOME": probe.home.path, "WARD_SITE": probe.siteFile.path, "HOME": probe.directory.path]
        let refused = try TerminalHarness.runToEnd(
            ["exec", "--user", TerminalHarness.user, "--", "sqlite3"],
            environment: env,
            capturingIn: probe.directory
        )
        #expect(refused.status == 78)
        #expect(String(decoding: refused.err, as: UTF8.self).contains("which holds the Ward home"))
    }

    @Test func aKernelWithoutLandlock_refusesTheProgramWith69_beforeSignOn() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ward-exec-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let site = directory.appendingPathComponent("site.toml")
        try "[exec]\nallow = [\"sqlite3\"]\n".write(to: site, atomically: true, encoding: .utf8)
        let env = [
            "WARD_HOME": directory.appendingPathComponent("home").path, "WARD_SITE": site.path, "HOME": directory.path,
            "WARD_SANDBOX_PROBE": "fail",
        ]
        let refused = try TerminalHarness.runToEnd(["exec", "--", "sqlite3"], environment: env, capturingIn: directory)
        #expect(refused.status == 69)
        let message = String(decoding: refused.err, as: UTF8.self)
        #expect(message.hasPrefix("ward: sqlite3 cannot run: this kernel has no Landlock"))
        #expect(message.contains("sandbox = \"off\""))
    }
}

/// /proc as the tests read it.
enum ProcessTableView {
    /// The parent of `pid`, nil once it is gone.
    static func parent(of pid: Int32) -> Int32? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        return stat[stat.index(close, offsetBy: 2)...].split(separator: " ").dropFirst().first.flatMap { Int32($0) }
    }
}
