import Foundation
import Glibc
import Testing

@testable import WardCore

/// The home's registry of live sessions, on a scratch home: entries written whole, listed only
/// while their process lives, removed at the end, and a lock request read once.
@Suite struct SessionRegistryTests {
    private func entry(id: String = "0123456789abcdef", pid: Int32 = getpid(), start: UInt64? = nil) -> SessionEntry {
        SessionEntry(
            id: id,
            pid: pid,
            processStart: start ?? ProcessStartTime.current,
            uid: getuid(),
            user: "alice",
            role: "clinician",
            tty: "/dev/pts/3",
            peer: nil,
            started: "2026-11-25T17:00:00Z",
            state: .signedOn
        )
    }

    private func registry(_ scratch: ScratchHome) throws -> SessionRegistry {
        SessionRegistry(home: try WardHome.open(option: scratch.path + "/ward"))
    }

    @Test func write_thenEntries_listsTheLiveSession_inAnOwnerOnlyFileAndDirectory() throws {
        let scratch = ScratchHome()
        let registry = try registry(scratch)
        try registry.write(entry())
        #expect(registry.entries() == [entry()])
        var info = stat()
        #expect(stat(registry.directory, &info) == 0 && info.st_mode & 0o777 == 0o700)
        #expect(stat(registry.directory + "/0123456789abcdef.json", &info) == 0 && info.st_mode & 0o777 == 0o600)
        // Only the entry: no temporary file is left behind.
        #expect(try FileManager.default.contentsOfDirectory(atPath: registry.directory) == ["0123456789abcdef.json"])
    }

    @Test func write_again_replacesTheState() throws {
        let scratch = ScratchHome()
        let registry = try registry(scratch)
        var locked = entry()
        try registry.write(locked)
        locked.state = .locked
        try registry.write(locked)
        #expect(registry.entries().map(\.state) == [.locked])
    }

    @Test func entries_ignoreAndRemoveTheEntryOfAProcessThatIsGone() throws {
        let scratch = ScratchHome()
        let registry = try registry(scratch)
        // A child that has exited and been reaped: its pid is no process's now.
        let child = fork()
        if child == 0 { _exit(0) }
        var status: Int32 = 0
        waitpid(child, &status, 0)
        try registry.write(entry(id: "00000000000000aa", pid: child))
        try registry.write(entry())
        #expect(registry.entries().map(\.id) == ["0123456789abcdef"])
        #expect(!FileManager.default.fileExists(atPath: registry.directory + "/00000000000000aa.json"))
    }

    @Test func entries_ignoreAnEntryWhosePidNowBelongsToAnotherProcess() throws {
        let scratch = ScratchHome()
        let registry = try registry(scratch)
        // This process's pid, but a start time that is not this process's: a reused pid.
        try registry.write(entry(start: ProcessStartTime.current + 1))
        #expect(registry.entries().isEmpty)
    }

    @Test func entries_skipFilesThatAreNotEntries_andAnEntryUnderAnotherName() throws {
        let scratch = ScratchHome()
        let registry = try registry(scratch)
        try registry.write(entry())
        let junk = registry.directory + "/00000000000000bb.json"
        _ = FileManager.default.createFile(
            atPath: junk,
            contents: Data("not json".utf8),
            attributes: [.posixPermissions: 0o600]
        )
        let misnamed = registry.directory + "/00000000000000cc.json"
        _ = FileManager.default.createFile(
            atPath: misnamed,
            contents: Data(entry().json().utf8),
            attributes: [.posixPermissions: 0o600]
        )
        #expect(registry.entries().map(\.id) == ["0123456789abcdef"])
    }

    @Test func remove_deletesTheEntryAndAnyRequest() throws {
        let scratch = ScratchHome()
        let registry = try registry(scratch)
        try registry.write(entry())
        registry.remove(id: "0123456789abcdef")
        #expect(registry.entries().isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: registry.directory).isEmpty)
    }

    @Test func theEntryHoldsWhoAndWhere_neverMore() throws {
        let json = entry().json()
        let fields = try #require(JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        // No peer for a local terminal; nothing of what the session has open.
        #expect(Set(fields.keys) == ["id", "pid", "process_start", "uid", "user", "role", "tty", "started", "state"])
        #expect(SessionEntry.parse(Array(json.utf8)) == entry())
    }

    @Test func aLockRequest_isReadOnce() throws {
        let scratch = ScratchHome()
        let registry = try registry(scratch)
        try registry.write(entry())
        let requestPath = registry.directory + "/0123456789abcdef.request"
        _ = FileManager.default.createFile(
            atPath: requestPath,
            contents: Data("bob\n".utf8),
            attributes: [.posixPermissions: 0o600]
        )
        #expect(registry.takeRequest(id: "0123456789abcdef")?.by == "bob")
        #expect(registry.takeRequest(id: "0123456789abcdef") == nil)
    }

    @Test func requestLock_signalsTheSessionsProcess_andLeavesWhoAsked() throws {
        let scratch = ScratchHome()
        let registry = try registry(scratch)
        // The "session" is a child that blocks SIGUSR1 and waits for it.
        var fds: [Int32] = [-1, -1]
        #expect(pipe(&fds) == 0)
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGUSR1)
        var old = sigset_t()
        pthread_sigmask(SIG_BLOCK, &set, &old)
        let child = fork()
        if child == 0 {
            var signal: Int32 = 0
            sigwait(&set, &signal)
            var byte = UInt8(truncatingIfNeeded: signal)
            _ = write(fds[1], &byte, 1)
            _exit(0)
        }
        pthread_sigmask(SIG_SETMASK, &old, nil)
        close(fds[1])
        defer {
            close(fds[0])
            kill(child, SIGKILL)  // it has exited when the request reached it; else it waits forever
            var status: Int32 = 0
            waitpid(child, &status, 0)
        }
        let target = entry(pid: child, start: ProcessStartTime.of(child))
        try registry.write(target)
        try registry.requestLock(of: target, by: "bob")
        var byte: UInt8 = 0
        #expect(read(fds[0], &byte, 1) == 1 && Int32(byte) == SIGUSR1)
        #expect(registry.takeRequest(id: target.id) == .init(by: "bob", action: .lock))
    }

    @Test func requestLock_toAGoneSession_sendsNothing() throws {
        let scratch = ScratchHome()
        let registry = try registry(scratch)
        #expect(throws: SessionRegistry.RequestFailure.gone) {
            try registry.requestLock(of: entry(start: ProcessStartTime.current + 1), by: "bob")
        }
    }

    @Test func isValidID_acceptsOnlyHexDigits() {
        #expect(SessionRegistry.isValidID("0123456789abcdef"))
        #expect(!SessionRegistry.isValidID("../credentials"))
        #expect(!SessionRegistry.isValidID(""))
        #expect(!SessionRegistry.isValidID("ABCDEF"))
    }

    @Test func processStartTime_ofThisProcess_andOfNoProcess() {
        #expect(ProcessStartTime.of(getpid()) != nil)
        #expect(ProcessStartTime.of(-1) == nil)
    }

    @Test func checkWritable_makesTheDirectory_andLeavesNoProbe() throws {
        let scratch = ScratchHome()
        let registry = try registry(scratch)
        try registry.checkWritable()
        let names = try FileManager.default.contentsOfDirectory(atPath: registry.directory)
        #expect(names.isEmpty)
    }

    @Test func checkWritable_refusesAPlainFile_with78_namingIt() throws {
        let scratch = ScratchHome()
        let registry = try registry(scratch)
        #expect(FileManager.default.createFile(atPath: registry.directory, contents: Data("x".utf8)))
        let error = #expect(throws: SessionRegistryError.self) { try registry.checkWritable() }
        #expect(error?.exitStatus == .configuration)
        #expect(error?.description.contains(registry.directory) == true)
        #expect(error?.description.contains("'ward lock' can reach it") == true)
    }

    @Test func checkWritable_refusesADirectoryOthersMayEnter_withTheChmod() throws {
        let scratch = ScratchHome()
        let registry = try registry(scratch)
        #expect(mkdir(registry.directory, 0o755) == 0)
        chmod(registry.directory, 0o755)
        let error = #expect(throws: SessionRegistryError.self) { try registry.checkWritable() }
        #expect(error?.exitStatus == .configuration)
        #expect(error?.description.contains("chmod 700 \(registry.directory)") == true)
    }

    @Test func checkWritable_whenTheEntryCannotBeWritten_refusesWith73() throws {
        // A directory where the probe's file goes stands for a full disk: the write fails.
        let scratch = ScratchHome()
        let registry = try registry(scratch)
        #expect(mkdir(registry.directory, 0o700) == 0)
        #expect(mkdir(registry.directory + "/probe.\(getpid()).new", 0o700) == 0)
        let error = #expect(throws: SessionRegistryError.self) { try registry.checkWritable() }
        #expect(error?.exitStatus == .cannotCreate)
    }

    @Test func anEntryNamingAnotherProgram_isNotListed_andNeverSignalled() throws {
        let scratch = ScratchHome()
        let registry = try registry(scratch)
        var pid: pid_t = 0
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/sleep"), strdup("30"), nil]
        defer { for arg in argv { free(arg) } }
        #expect(posix_spawn(&pid, "/bin/sleep", nil, nil, argv, nil) == 0)
        defer {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
        // The start time is read once the child has become sleep (its name changes at exec).
        while ProcessIdentity.of(pid)?.name != "sleep" { sched_yield() }
        let forged = entry(id: "00aa", pid: pid, start: ProcessStartTime.of(pid))
        try registry.write(forged)
        #expect(registry.entries().isEmpty)
        #expect(throws: SessionRegistry.RequestFailure.gone) { try registry.requestLock(of: forged, by: "alice") }
        var status: Int32 = 0
        #expect(waitpid(pid, &status, WNOHANG) == 0, "sleep is still running: it was not signalled")
    }

    @Test func processIdentity_readsTheNameAndRealUserOfAProcess() throws {
        let me = try #require(ProcessIdentity.current)
        #expect(me.uid == getuid())
        #expect(me.isSameProgram(as: me, uid: getuid()))
        #expect(!me.isSameProgram(as: me, uid: getuid() &+ 1))
    }
}
