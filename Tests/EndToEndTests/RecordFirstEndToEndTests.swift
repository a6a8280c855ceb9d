import Foundation
import Glibc
import Testing

/// The audit record first, then the change: an administrative command killed at any moment
/// leaves no change without its record, and a session whose registry entry cannot be written is
/// not started.
@Suite struct RecordFirstEndToEndTests {
    /// The names in the home's credential store.
    private func users(_ h: BatchHome) -> [String] {
        let text = (try? String(contentsOfFile: h.home + "/credentials", encoding: .utf8)) ?? ""
        return text.split(separator: "\n").dropFirst().filter { !$0.hasPrefix("#") }.compactMap {
            $0.split(separator: "\t").first.map(String.init)
        }
    }

    /// The audit log's records, each line that parses (a line cut by a kill is not a record).
    private func records(_ h: BatchHome) -> [[String: Any]] {
        let text = (try? String(contentsOfFile: h.home + "/audit.jsonl", encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    private func size(_ path: String) -> Int {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_size) : -1
    }

    @Test func killingUserAdd_atAnyMoment_neverLeavesAUserWithoutARecord() throws {
        let h = try BatchHome(patients: 5)
        let log = h.home + "/audit.jsonl"
        let credentials = h.home + "/credentials"
        for run in 0..<30 {
            let name = "kill\(run)"
            let logSize = size(log)
            let storeSize = size(credentials)
            let p = try h.start(["user", "add", name, "--role", "clerk", "--password-stdin"])
            p.send("password \(run)")
            p.closeInput()
            // Each third run is killed at once, after its first record, or once the store changed:
            // the moments before, between and after the record and the change.
            let deadline = ContinuousClock.now + .seconds(10)
            var exited = false
            while run % 3 != 0, ContinuousClock.now < deadline {
                if run % 3 == 1, size(log) != logSize { break }
                if run % 3 == 2, size(credentials) != storeSize { break }
                var status: Int32 = 0
                if waitpid(p.pid, &status, WNOHANG) == p.pid {
                    exited = true  // finished before the kill, and reaped here: nothing left to wait for
                    break
                }
                sched_yield()
            }
            if !exited {
                kill(p.pid, SIGKILL)
                _ = try? p.waitForExit()
            }
        }
        let recorded = Set(
            records(h).filter { $0["kind"] as? String == "user-add" }.compactMap { $0["target"] as? String }
        )
        for user in users(h) {
            #expect(recorded.contains(user), "\(user) is in the store with no user-add record")
        }
    }

    @Test func anAdministrativeCommand_recordsItsStart_beforeItsOutcome() throws {
        let h = try BatchHome(patients: 5)
        let p = try h.start(["user", "add", "bob", "--role", "clerk", "--password-stdin"])
        p.send("bobs password")
        p.closeInput()
        #expect(try p.waitForExit() == 0)
        let added = try h.auditRecords().filter { $0["kind"] as? String == "user-add" }
        #expect(added.map { $0["outcome"] as? String } == ["started", "ok"])
        #expect(added.allSatisfy { $0["target"] as? String == "bob" })
    }

    @Test func aSessionWhoseRegistryIsAPlainFile_isNotStarted_with78NamingIt() throws {
        let h = try BatchHome(patients: 5)
        let sessions = h.home + "/sessions"
        try? FileManager.default.removeItem(atPath: sessions)
        #expect(FileManager.default.createFile(atPath: sessions, contents: Data()))
        let p = try h.start(["-c", "whoami", "--user", "demo", "--password-file", h.passwordFile])
        p.closeInput()
        #expect(try p.waitForExit() == 78)
        #expect(p.standardError.contains("\(sessions) is not a directory"), "\(p.standardError)")
        #expect(p.standardError.contains("'ward lock' can reach it"))
        #expect(try h.auditRecords().isEmpty, "nobody signed on")
    }
}
