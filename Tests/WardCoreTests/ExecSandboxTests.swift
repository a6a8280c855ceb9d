import Foundation
import Glibc
import Testing

@testable import WardCore

/// The parts of `ward exec`'s sandbox that need no terminal: what a kernel without Landlock or
/// seccomp gets, the rules, the interpreters a program needs, the arguments as the log keeps
/// them, the answer to an exec, and the processes a program started.
struct ExecSandboxTests {
    static func program(
        _ path: String = "/usr/bin/sqlite3",
        _ edit: (inout ExecPolicy.Rules) -> Void = { _ in }
    )
        -> ExecProgram
    {
        var rules = ExecPolicy.Rules()
        edit(&rules)
        return ExecProgram(entry: path, path: path, rules: rules)
    }

    @Test func aKernelWithoutLandlockOrSeccompNotification_refusesWith69_sayingWhy() throws {
        let cases: [(Int32, Int32, String)] = [
            (-ENOSYS, 1, "this kernel has no Landlock (Linux 5.13 or later"),
            (-EOPNOTSUPP, 1, "Landlock is built into this kernel but turned off at boot"),
            (3, -EINVAL, "seccomp user notification, Linux 5.5"),
        ]
        for (abi, notify, reason) in cases {
            let error = #expect(throws: ExecRefusal.self) {
                try ExecSandbox(program: Self.program(), landlockABI: abi, seccompNotify: notify)
            }
            #expect(error?.exitStatus.rawValue == 69)
            #expect(error?.description.hasPrefix("sqlite3 cannot run: ") == true)
            #expect(error?.description.contains(reason) == true)
            #expect(error?.description.contains("sandbox = \"off\"") == true)
        }
    }

    @Test func sandboxOff_runsOnAnyKernel_withNoRules_andTheLogSaysOff() throws {
        let sandbox = try ExecSandbox(program: Self.program { $0.sandbox = false }, landlockABI: -ENOSYS)
        #expect(sandbox.landlockABI == 0)
        #expect(!sandbox.seccomp)
        #expect(sandbox.rules(pty: "/dev/pts/9").isEmpty)
        #expect(sandbox.description == nil)
    }

    @Test func rules_grantTheSystemForReading_theSiteListsAsWritten_andExecuteOnlyToTheProgramAndItsHelpers() throws {
        let sandbox = try ExecSandbox(
            program: Self.program {
                $0.read = ["/srv/extracts"]
                $0.write = ["/srv/out"]
                $0.mayRun = ["/usr/bin/less"]
            },
            landlockABI: 4,
            seccompNotify: 1
        )
        let rules = sandbox.rules(pty: "/dev/pts/9")
        func access(_ path: String) -> ExecSandbox.Access {
            rules.filter { $0.path == path }.reduce([]) { $0.union($1.access) }
        }
        #expect(access("/usr") == .read)
        #expect(access("/srv/extracts") == .read)
        #expect(access("/srv/out") == [.read, .write])
        #expect(access("/dev/pts/9") == [.read, .write, .device])
        #expect(access("/usr/bin/sqlite3") == .execute)
        #expect(access("/usr/bin/less") == .execute)
        let loader = try #require(ProgramFile.interpreters(of: "/usr/bin/sqlite3").first)
        #expect(access(loader) == .execute)
        // Nothing of /etc but the files a start needs; no other terminal.
        #expect(access("/etc").isEmpty)
        #expect(!rules.contains { $0.path.hasPrefix("/etc/shadow") || $0.path == "/dev/pts" || $0.path == "/home" })
        let executable = rules.filter { $0.access.contains(.execute) }.map(\.path)
        #expect(Set(executable).count <= 4)  // sqlite3, less, and their loader
        #expect(sandbox.description?.mayRun == ["/usr/bin/less"])
        #expect(sandbox.description?.landlockABI == 4)
    }

    @Test func interpreters_aProgramsLoader_aScriptsInterpreterAndItsLoader_noneForAnUnreadableFile() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ward-pf-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let loaders = ProgramFile.interpreters(of: "/bin/sh")
        #expect(loaders.count == 1)
        #expect(loaders.first?.contains("ld-linux") == true)
        let script = directory.appendingPathComponent("tool").path
        try "#!  /bin/sh -e\necho hi\n".write(toFile: script, atomically: true, encoding: .utf8)
        #expect(ProgramFile.interpreters(of: script) == ["/bin/sh"] + loaders)
        let relative = directory.appendingPathComponent("relative").path
        try "#!sh\n".write(toFile: relative, atomically: true, encoding: .utf8)
        #expect(ProgramFile.interpreters(of: relative).isEmpty)
        #expect(ProgramFile.interpreters(of: directory.appendingPathComponent("missing").path).isEmpty)
    }

    @Test func arguments_keepEverythingButAPassword() {
        let cases = [
            ("postgresql://night:s3cret@db.example/clinical", "postgresql://night:***@db.example/clinical"),
            ("host=db user=night password=s3cret dbname=c", "host=db user=night password=*** dbname=c"),
            ("--password=s3cret", "--password=***"),
            ("PASSWORD=x", "PASSWORD=***"),
            ("postgresql://night@db/clinical", "postgresql://night@db/clinical"),
            ("-readonly", "-readonly"),
            ("it's a=b", "it's a=b"),
            ("x://a:b@c and y://d:e@f", "x://a:***@c and y://d:***@f"),
        ]
        for (argument, kept) in cases { #expect(ArgumentMask.masked(argument) == kept) }
    }

    @Test func theGate_letsOnlyMayRunThrough_byExecve_fromOneThread() {
        let gate = ExecGate(listener: -1, mayRun: ["/usr/bin/less"])
        let me = getpid()
        #expect(gate.reason("/bin/sh", execveat: false, caller: me) == "not in may-run")
        #expect(gate.reason("/usr/bin/less", execveat: true, caller: me)?.hasPrefix("execveat") == true)
        #expect(ProcessTable.threads(me) ?? 0 > 1)  // the test runner has threads
        #expect(gate.reason("/usr/bin/less", execveat: false, caller: me) == "it has several threads")
        #expect(ExecGate(listener: -1, mayRun: []).reason("/bin/sh", execveat: false, caller: me) != nil)
    }

    @Test func processes_aProgramsJobsAreStoppedTogether_continued_andEndedWithinTheGrace() throws {
        let terminal = try PseudoTerminal(settings: termios(), size: (rows: 24, columns: 80))
        let sandbox = try ExecSandbox(program: Self.program("/bin/sh") { $0.sandbox = false })
        // `exec` keeps the shell's own pid for the last sleep; two jobs run beside it.
        let child = try ChildProcess(
            path: "/bin/sh",
            arguments: ["-c", "sleep 30 & sleep 30 & exec sleep 31"],
            environment: ["PATH=/usr/bin:/bin"],
            terminal: terminal,
            sandbox: sandbox
        )
        defer { child.end(grace: .milliseconds(100), foreground: nil) }
        let processes = ProgramProcesses(leader: child.pid, sandboxed: false)
        #expect(Self.poll { processes.members().count == 3 })
        let members = processes.members()
        #expect(members.first == child.pid)
        processes.stopAll()
        #expect(Self.poll { members.allSatisfy { ProcessTable.entry($0)?.state == "T" } })
        processes.continueAll()
        #expect(Self.poll { members.allSatisfy { ProcessTable.entry($0)?.state != "T" } })
        processes.endOthers(grace: .milliseconds(500))
        #expect(processes.members() == [child.pid])
        #expect(child.exit == nil)  // the program's own end is ChildProcess's
    }

    /// Polls `condition` for up to ten seconds: what a process does after a signal is observed,
    /// not waited for.
    static func poll(_ condition: () -> Bool) -> Bool {
        let end = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < end {
            if condition() { return true }
            usleep(10_000)  // the polling interval, not a wait for anything
        }
        return false
    }
}
