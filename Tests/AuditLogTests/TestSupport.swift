import AuditLog
import Crypto
import Glibc
import WardCore

/// A fresh directory under /tmp, removed when the value goes away.
final class TempDirectory {
    let path: String

    init() {
        var template = Array("/tmp/auditlog-test-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(made != nil, "mkdtemp failed")
        path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    deinit {
        _ = chmod(path, 0o700)
        _ = runProcess("/bin/rm", ["-rf", path])
    }

    func file(_ name: String) -> String { path + "/" + name }
}

/// Starts `executable` with `arguments` and extra `environment`; returns its pid.
func spawnProcess(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) -> pid_t {
    var env = [String: String]()
    var index = 0
    while let entry = environ[index] {
        let text = String(cString: entry)
        if let eq = text.firstIndex(of: "=") { env[String(text[..<eq])] = String(text[text.index(after: eq)...]) }
        index += 1
    }
    env.merge(environment) { $1 }
    let argv = ([executable] + arguments).map { strdup($0) } + [nil]
    let envp = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer {
        for arg in argv { free(arg) }
        for entry in envp { free(entry) }
    }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    var pid: pid_t = 0
    let rc = posix_spawn(&pid, executable, &actions, nil, argv, envp)
    precondition(rc == 0, "posix_spawn \(executable): \(rc)")
    return pid
}

/// Waits for `pid`; returns its exit status, or 128 + signal.
func waitForExit(_ pid: pid_t) -> Int32 {
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 { if errno != EINTR { return -1 } }
    let low = status & 0x7F
    return low == 0 ? (status >> 8) & 0xFF : 128 + low
}

func runProcess(_ executable: String, _ arguments: [String]) -> Int32 {
    waitForExit(spawnProcess(executable, arguments))
}

func readBytes(_ path: String) -> [UInt8] {
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { return [] }
    defer { close(fd) }
    return (try? FileSecurity.readAll(descriptor: fd, path: path, limit: 1 << 30)) ?? []
}

func writeBytes(_ path: String, _ bytes: [UInt8]) {
    let fd = open(path, O_WRONLY | O_TRUNC | O_CREAT, 0o600)
    precondition(fd >= 0)
    _ = try? FileSecurity.writeAll(descriptor: fd, path: path, bytes: bytes)
    close(fd)
}

func readText(_ path: String) -> String { String(decoding: readBytes(path), as: UTF8.self) }

/// The file's lines, without their newlines (a trailing newline makes no empty last line).
func lines(of bytes: [UInt8]) -> [[UInt8]] {
    var parts = bytes.split(separator: 0x0A, omittingEmptySubsequences: false).map(Array.init)
    if parts.last == [] { parts.removeLast() }
    return parts
}

func joinLines(_ parts: [[UInt8]], trailingNewline: Bool = true) -> [UInt8] {
    var out: [UInt8] = []
    for (i, p) in parts.enumerated() {
        out += p
        if i < parts.count - 1 || trailingNewline { out.append(0x0A) }
    }
    return out
}

let testSession = AuditRecord.SessionFields(id: "s-test", user: "demo", role: "clinician")

/// A counting clock that starts at 2026-11-22T00:00:00Z and moves 1 ms per record.
func steppingClock() -> @Sendable () -> Int64 {
    let counter = Counter()
    return { 1_795_305_600_000 + counter.next() }
}

/// Only ever touched by the one thread that owns the writer using it.
private final class Counter: @unchecked Sendable {
    private var value: Int64 = 0
    func next() -> Int64 {
        value += 1
        return value
    }
}

/// Writes `count` access records (`open MRN-1000`, `MRN-1001`, …) to `path`.
@discardableResult
func writeLog(
    _ path: String,
    count: Int,
    chain: AuditChain = AuditChain(),
    policy: AuditWriter.SyncPolicy = .never
)
    throws -> AuditWriter
{
    let writer = try AuditWriter(path: path, chain: chain, policy: policy, clock: steppingClock())
    for i in 0..<count {
        let access = RecordAccess(.opened, record: "MRN-\(1000 + i)", outcome: .ok)
        try writer.append(.access(access), session: testSession, source: "tty")
    }
    return writer
}

func key(_ text: String) -> SymmetricKey { SymmetricKey(data: Array(text.utf8)) }

/// The file's head, as the verifier would read it.
func headState(_ logPath: String, chain: AuditChain = AuditChain()) -> AuditVerifier.HeadState {
    let bytes = readBytes(AuditHead.path(forLog: logPath))
    if bytes.isEmpty { return .absent }
    return AuditHead(bytes: bytes, chain: chain).map { .present($0) } ?? .unreadable
}

var isRoot: Bool { geteuid() == 0 }

/// Who is signed on, changed by the test as the session driver would change it; the chain's
/// contexts read it.
final class DriverSession {
    var info: SessionInfo

    init(_ chain: InterceptorChain) {
        info = chain.session
        chain.readsSession { self.info }
    }
}

/// The records' rows under the table's header, cells two spaces apart, one line each: what the
/// tests read of `AuditTable`, without the shell's layout.
func tableText(_ records: [AuditRecord]) -> String {
    ([AuditTable.header] + records.map { AuditTable.row($0) }).map { $0.joined(separator: "  ") }.joined(
        separator: "\n"
    )
}
