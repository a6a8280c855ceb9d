import Foundation
import Glibc
import PostgresTestSupport
import Testing

/// Live sessions across hosts, through the real binary: two Ward homes stand for two hosts of
/// one site whose records are on a real PostgreSQL 15, the sessions running as the site's session
/// role. `ward sessions` at one lists the other's sessions, `ward lock` at one locks the other's,
/// a killed session is unlisted by the server, and an idle session is not woken by any of it.
@Suite(.serialized) struct PostgresLiveSessionsEndToEndTests {
    /// Host A: alice's terminal session, on a fresh database migrated by its owner.
    struct Site {
        let server: PostgresServer
        let database: String
        let role: String
        let text: String
        /// What runs `ward` as the tables' owner (`ward db migrate`, `ward user add`): a home
        /// and site file in a directory of their own, removed by `removeOwner()`.
        let owner: [String: String]

        func removeOwner() { try? FileManager.default.removeItem(atPath: owner["HOME"]!) }

        /// alice and carol, added by the owner: the session role may not change the site's users.
        func addUsers() throws {
            for (user, role, password) in [
                (TerminalHarness.user, "clinician", TerminalHarness.password), ("carol", "auditor", "carol password"),
            ] {
                _ = try TerminalHarness.run(
                    TerminalHarness.wardPath,
                    ["user", "add", user, "--role", role, "--password-stdin"],
                    environment: owner,
                    input: password + "\n"
                )
                #expect(TerminalHarness.lastStatus == 0, "ward user add \(user) as the owner")
            }
        }
    }

    private static func makeSite() throws -> Site {
        let server = try PostgresServer.shared()
        let database = try server.createDatabase("live")
        let role = server.uniqueName("session")
        try server.psql("CREATE ROLE \(role) LOGIN")
        let socket = server.socketDirectory.replacingOccurrences(of: "/", with: "%2F") + ":\(server.port)"
        func site(_ user: String) -> String {
            "[[plugin]]\nname = \"audit-log\"\n\n[records]\nbackend = \"postgresql\"\n"
                + "url = \"postgresql://\(user)@\(socket)/\(database)\"\n" + TerminalHarness.unguarded
        }
        // The owner (the server's superuser here) migrates and narrows the session role.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ward-live-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let ownerSite = directory.appendingPathComponent("owner.toml").path
        try site(server.user).write(toFile: ownerSite, atomically: true, encoding: .utf8)
        _ = try TerminalHarness.run(
            TerminalHarness.wardPath,
            ["db", "migrate", "--session-role", role],
            environment: [
                "WARD_HOME": directory.appendingPathComponent("home").path, "WARD_SITE": ownerSite,
                "HOME": directory.path,
            ]
        )
        #expect(TerminalHarness.lastStatus == 0, "ward db migrate --session-role")
        let owner = [
            "WARD_HOME": directory.appendingPathComponent("home").path, "WARD_SITE": ownerSite, "HOME": directory.path,
        ]
        return Site(server: server, database: database, role: role, text: site(role), owner: owner)
    }

    /// `ward sessions --format json` run at `t`'s host, as objects.
    private func sessions(on t: TerminalHarness) throws -> [[String: Any]] {
        let (status, out) = try t.ward(["sessions", "--format", "json"])
        #expect(status == 0, "\(out)")
        return out.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    /// The context switches (voluntary and not) of each thread of `pid` so far, by thread name
    /// and id: each wake-up of a thread counts one at least.
    private func switches(of pid: Int32) throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for task in try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task") {
            let status = try String(contentsOfFile: "/proc/\(pid)/task/\(task)/status", encoding: .utf8)
            let lines = status.split(separator: "\n")
            let name = lines.first { $0.hasPrefix("Name:") }.map {
                $0.dropFirst(5).trimmingCharacters(in: .whitespaces)
            }
            counts["\(name ?? "?") \(task)"] = lines.filter { $0.contains("ctxt_switches:") }
                .compactMap { Int($0.split(separator: "\t").last ?? "") }.reduce(0, +)
        }
        return counts
    }

    @Test func aSessionAtOneHost_isListedAtAnother_lockedFromIt_andUnlistedOnceKilled() throws {
        let site = try Self.makeSite()
        defer { site.removeOwner() }
        let hostA = try TerminalHarness(site: site.text)
        let hostB = try TerminalHarness(site: site.text)
        try site.addUsers()
        try hostA.signOn()

        // Listed at B, with A's session's host, terminal and state, by the server.
        let listed = try sessions(on: hostB)
        #expect(listed.count == 1)
        let alice = try #require(listed.first)
        #expect(alice["user"] as? String == "alice" && alice["state"] as? String == "signed-on")
        #expect(alice["role"] as? String == "clinician" && (alice["tty"] as? String)?.hasPrefix("/dev/") == true)
        #expect((alice["host"] as? String)?.isEmpty == false)
        let id = try #require(alice["id"] as? String)
        let (_, table) = try hostB.ward(["sessions"])
        #expect(table.hasPrefix("HOST") && table.contains(id))

        // Idle at the prompt, listed and listening: once sign-on has settled (its last writes,
        // the connections' set-up; a second without a switch), nothing wakes any thread.
        let pid = try hostA.wardPID()
        var settled = try switches(of: pid)
        try eventually("sign-on to settle", timeout: .seconds(20)) {
            Thread.sleep(forTimeInterval: 1)  // the window looked at, not a wait for anything
            let now = try switches(of: pid)
            defer { settled = now }
            return now == settled ? true : nil
        }
        Thread.sleep(forTimeInterval: 3)  // the measurement's window
        let woken = try switches(of: pid).filter { settled[$0.key] != $0.value }
        #expect(woken.isEmpty, "threads woken while idle: \(woken) (before: \(settled))")

        // Locked from B: the same words and status as a local `ward lock`, the lock screen at A.
        let (status, out) = try hostB.ward(
            ["lock", "--user", "alice", "--as", "carol", "--password-stdin"],
            input: "carol password\n"
        )
        #expect(status == 0)
        #expect(out == "Locked 1 session of alice: \(id).\n")
        try hostA.waitFor("Ward is locked: locked by carol (ward lock). Signed on as alice.", timeout: .seconds(1))
        #expect(try sessions(on: hostB).first?["state"] as? String == "locked")
        #expect(!(try hostA.screen()).contains("ward>"))
        try hostA.unlock()
        try hostA.waitFor("ward>")

        // The session role may change no other session's row, even its own rows only through Ward.
        let changed = try site.server.psql(
            "SET ROLE \(site.role); WITH u AS (UPDATE ward_session SET state = 'locked' RETURNING 1) SELECT count(*) FROM u",
            database: site.database
        )
        #expect(changed.split(separator: "\n").last == "0", "\(changed)")

        // Killed: the server drops its connection, its lock, and so its listing.
        kill(pid, SIGKILL)
        try eventually("the killed session to be unlisted at B") {
            try sessions(on: hostB).isEmpty ? true : nil
        }
        let (after, none) = try hostB.ward(
            ["lock", "--user", "alice", "--as", "carol", "--password-stdin"],
            input: "carol password\n"
        )
        #expect(after == 0 && none == "No live session of alice.\n")
    }
}
