import Foundation
import Glibc
import Testing

/// `ward audit rotate` killed with SIGKILL at every step of its work while a batch writes: each
/// state it leaves verifies or is put back by `ward audit verify --repair`, and no record is
/// lost.
@Suite struct RotationCrashEndToEndTests {
    /// `ward ARGS` in `h` to its end: what it printed on both streams, and its status.
    private func ward(_ h: BatchHome, _ arguments: [String]) throws -> (output: String, status: Int32) {
        let p = try h.start(arguments)
        p.closeInput()
        let status = try p.waitForExit()
        return (p.standardOutput + p.standardError, status)
    }

    /// Whether `pid` still runs (not yet a zombie), without reaping it: its waiter is the
    /// harness's.
    private func isRunning(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return false }
        return stat[stat.index(close, offsetBy: 2)] != "Z"
    }

    /// The numbers `n` of the `audit.jsonl.n` in the home.
    private func numbers(_ h: BatchHome) -> [Int] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: h.home)) ?? []
        return names.compactMap { name in
            guard name.hasPrefix("audit.jsonl.") else { return nil }
            return Int(name.dropFirst("audit.jsonl.".count))
        }.sorted()
    }

    private func isSecondName(_ a: String, _ b: String) -> Bool {
        var x = stat()
        var y = stat()
        return lstat(a, &x) == 0 && lstat(b, &y) == 0 && x.st_ino == y.st_ino
    }

    @Test func rotationsKilledAtEachStep_withAWriterRunning_leaveEveryRecord() throws {
        let h = try BatchHome(patients: 5)
        let log = h.home + "/audit.jsonl"
        let writer = try h.start(["--batch", "-", "--user", "demo", "--password-file", h.passwordFile])
        var written = 0
        var repaired = 0
        for run in 0..<200 {
            writer.send("whoami")
            written += 1
            let before = numbers(h)
            let rotate = try h.start(["audit", "rotate"])
            rotate.closeInput()
            // Killed at once, or when its temporary file appears, when the renumbering has begun,
            // or when the log has its second name: each step of the rotation.
            let deadline = ContinuousClock.now + .seconds(10)
            while run % 4 != 0, ContinuousClock.now < deadline, isRunning(rotate.pid) {
                if run % 4 == 1, access(log + ".rotating", F_OK) == 0 { break }
                if run % 4 == 2, numbers(h) != before { break }
                if run % 4 == 3, isSecondName(log, log + ".1") { break }
                sched_yield()
            }
            kill(rotate.pid, SIGKILL)
            _ = try? rotate.waitForExit()
            var verified = try ward(h, ["audit", "verify"])
            if verified.status != 0 {
                #expect(verified.output.contains("interrupted rotation"), "run \(run): \(verified.output)")
                verified = try ward(h, ["audit", "verify", "--repair"])
                repaired += 1
            }
            #expect(verified.status == 0, "run \(run): \(verified.output)")
            if verified.status != 0 { break }
        }
        writer.closeInput()
        #expect(try writer.waitForExit() == 0, "\(writer.standardError)")
        #expect(try ward(h, ["audit", "verify"]).status == 0)
        let records = try h.allAuditRecords()
        let seqs = records.compactMap { $0["seq"] as? Int }
        #expect(seqs == Array(1...seqs.count), "no record lost: the seqs run without a gap")
        let commands = records.filter { $0["kind"] as? String == "command" && $0["command"] as? String == "whoami" }
        #expect(commands.count == written, "every line the writer ran is on record")
        // What the repairs wrote says so: one record each, besides the ones rotations made.
        let repairs = records.filter { $0["kind"] as? String == "repair" }.count
        #expect(repairs >= repaired, "\(repairs) repair records for \(repaired) repairs by verify")
    }
}
