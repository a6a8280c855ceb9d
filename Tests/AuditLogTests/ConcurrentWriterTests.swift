import AuditLog
import Glibc
import Testing
import WardCore

/// The path of this test binary, to start it again as a child writer.
private let testBinary: String = {
    var buffer = [CChar](repeating: 0, count: 4096)
    let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    return n > 0
        ? String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) : CommandLine.arguments[0]
}()

/// Starts this test binary again, running only `ChildProcess.run`, and waits for it.
func startChild(mode: String, log: String, environment: [String: String] = [:]) -> pid_t {
    let env = ["AUDITLOG_CHILD_MODE": mode, "AUDITLOG_CHILD_LOG": log].merging(environment) { $1 }
    return spawnProcess(
        testBinary,
        ["--testing-library", "swift-testing", "--filter", "ChildProcess"],
        environment: env
    )
}

func runChild(mode: String, log: String, uid: uid_t? = nil) -> Int32 {
    waitForExit(startChild(mode: mode, log: log, environment: uid.map { ["AUDITLOG_CHILD_UID": "\($0)"] } ?? [:]))
}

/// Several processes append to one log at once; the chain must stay whole.
@Suite struct ConcurrentWriterTests {
    let directory = TempDirectory()

    @Test func eightProcesses_appendingAtOnce_leaveOneValidChain() throws {
        let path = directory.file("audit.jsonl")
        let writers = 8
        let each = 60
        let pids = (0..<writers).map {
            startChild(
                mode: "append",
                log: path,
                environment: ["AUDITLOG_CHILD_ID": "w\($0)", "AUDITLOG_CHILD_COUNT": "\(each)"]
            )
        }
        let statuses = pids.map(waitForExit)
        #expect(statuses == Array(repeating: 0, count: writers))

        let report = try AuditVerifier().verify(path: path)
        #expect(report.problem == nil)
        #expect(report.records == writers * each)
        #expect(report.sessions.count == writers)

        // Each writer's records are its own, in its own order, and they interleave.
        let records = lines(of: readBytes(path)).enumerated().compactMap { AuditRecord(line: $0 + 1, bytes: $1[...]) }
        var bySession: [String: [Int64]] = [:]
        for r in records { bySession[r.object.string("session")!, default: []].append(r.object.integer("pid")!) }
        #expect(bySession.values.allSatisfy { $0.count == each && Set($0).count == 1 })
        let switches = zip(records, records.dropFirst()).filter {
            $0.object.string("session") != $1.object.string("session")
        }.count
        #expect(switches >= writers - 1)
    }
}

/// Not a test on its own: the body of a child process started by the tests above.
@Suite struct ChildProcess {
    @Test(.enabled(if: getenv("AUDITLOG_CHILD_MODE") != nil))
    func run() throws {
        let env = { (name: String) in getenv(name).map { String(cString: $0) } }
        let path = try #require(env("AUDITLOG_CHILD_LOG"))
        if let uid = env("AUDITLOG_CHILD_UID").flatMap({ uid_t($0) }) {
            try #require(setgroups(0, nil) == 0 && setgid(gid_t(uid)) == 0 && setuid(uid) == 0)
        }
        switch env("AUDITLOG_CHILD_MODE") {
        case "append":
            let id = try #require(env("AUDITLOG_CHILD_ID"))
            let count = Int(env("AUDITLOG_CHILD_COUNT") ?? "") ?? 10
            let writer = try AuditWriter(path: path, policy: .always)
            let session = AuditRecord.SessionFields(id: id, user: "user-\(id)", role: "clinician")
            for i in 0..<count {
                try writer.append(
                    .access(RecordAccess(.opened, record: "MRN-\(i)", outcome: .ok)),
                    session: session,
                    source: "batch:\(id).ward:\(i + 1)"
                )
            }
            writer.close()
        case "start-refused":
            let error = #expect(throws: AuditError.self) { try AuditWriter(path: path) }
            guard case .file(.system(_, _, EACCES)) = error else {
                Issue.record("expected EACCES, got \(String(describing: error))")
                return
            }
        default:
            Issue.record("unknown child mode")
        }
    }
}
