import Foundation
import Glibc
import Testing

/// Through the real binary: live sessions in the home's registry, `ward lock`
/// locking them from outside, who may, and the site's use notice before the sign-on.
@Suite struct SessionLockEndToEndTests {
    static let site = "[[plugin]]\nname = \"audit-log\"\n" + TerminalHarness.unguarded

    private func addUser(_ name: String, role: String, _ t: TerminalHarness) throws {
        let (status, _) = try t.ward(
            ["user", "add", name, "--role", role, "--password-stdin"],
            input: "\(name) password\n"
        )
        #expect(status == 0)
    }

    /// `ward sessions --format json`, as objects.
    private func sessions(_ t: TerminalHarness) throws -> [[String: Any]] {
        let (status, out) = try t.ward(["sessions", "--format", "json"])
        #expect(status == 0)
        return try out.split(separator: "\n").map {
            try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    private func auditRecords(_ t: TerminalHarness) throws -> [[String: Any]] {
        try String(contentsOf: t.home.appendingPathComponent("audit.jsonl"), encoding: .utf8)
            .split(separator: "\n")
            .compactMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    @Test func wardLockUser_locksBothLiveSessionsOfThatUser_andSessionsShowsThemLocked() throws {
        let first = try TerminalHarness(site: Self.site)
        let second = try TerminalHarness(sharing: first)
        try addUser("bob", role: "auditor", first)
        try first.signOn()
        try second.signOn()
        try first.enter("whoami")

        let live = try sessions(first)
        #expect(live.count == 2)
        #expect(live.allSatisfy { $0["user"] as? String == "alice" && $0["state"] as? String == "signed-on" })
        #expect(
            live.allSatisfy {
                $0["role"] as? String == "clinician" && ($0["tty"] as? String)?.hasPrefix("/dev/") == true
            }
        )
        let (listed, table) = try first.ward(["sessions"])
        #expect(listed == 0)
        #expect(table.hasPrefix("ID"))
        #expect(table.split(separator: "\n").filter { $0.contains("alice") && $0.contains("signed-on") }.count == 2)

        let (status, out) = try first.ward(
            ["lock", "--user", "alice", "--as", "bob", "--password-stdin"],
            input: "bob password\n"
        )
        #expect(status == 0)
        #expect(out.hasPrefix("Locked 2 sessions of alice: "))
        for t in [first, second] {
            try t.waitFor("Ward is locked: locked by bob (ward lock). Signed on as alice.")
            try t.waitFor("Password for alice:")
            #expect(!(try t.screen()).contains("ward>"))
        }
        let after = try sessions(first)
        #expect(after.count == 2 && after.allSatisfy { $0["state"] as? String == "locked" })

        // Audited: the request before it was made (`started`), then with the Unix user and the
        // sessions; each session's lock, by whom.
        let records = try auditRecords(first)
        let requests = records.filter { $0["kind"] as? String == "lock-request" }
        #expect(requests.map { $0["outcome"] as? String } == ["started", "ok"])
        let request = try #require(requests.last)
        #expect(request["by"] as? String == "bob" && request["target"] as? String == "user alice")
        #expect(request["outcome"] as? String == "ok")
        #expect(
            Set((request["sessions"] as? String ?? "").split(separator: " ").map(String.init))
                == Set(live.compactMap { $0["id"] as? String })
        )
        let locks = records.filter { $0["kind"] as? String == "lock" }
        #expect(
            locks.count == 2 && locks.allSatisfy { $0["cause"] as? String == "request" && $0["by"] as? String == "bob" }
        )

        // Unlocking puts them back in the list as signed on.
        try first.type(TerminalHarness.password)
        try first.press("Enter")
        try first.waitFor("ward>")
        #expect(try sessions(first).filter { $0["state"] as? String == "signed-on" }.count == 1)
    }

    @Test func aClerkCannotLockAnotherUsersSession_butMayLockTheirOwn() throws {
        let t = try TerminalHarness(site: Self.site)
        try addUser("carol", role: "clerk", t)
        try t.signOn()
        let (refused, _) = try t.ward(
            ["lock", "--user", "alice", "--as", "carol", "--password-stdin"],
            input: "carol password\n"
        )
        #expect(refused == 77)
        #expect(try sessions(t).first?["state"] as? String == "signed-on")
        #expect(!(try t.screen()).contains("Ward is locked"))
        let request = try #require(try auditRecords(t).last { $0["kind"] as? String == "lock-request" })
        #expect(request["outcome"] as? String == "failed" && request["status"] as? Int == 77)

        // Another user's name, with no session now: refused all the same.
        #expect(
            try t.ward(["lock", "--user", "bob", "--as", "carol", "--password-stdin"], input: "carol password\n").0
                == 77
        )
        // Nobody named: refused as well, unless root asks (`rootLocksAnyoneWithoutAWardUser`).
        if getuid() != 0 { #expect(try t.ward(["lock", "--all"]).0 == 77) }
        // A wrong password is no identity.
        #expect(try t.ward(["lock", "--all", "--as", "alice", "--password-stdin"], input: "wrong\n").0 == 77)

        // Alice may lock her own.
        let id = try #require(try sessions(t).first?["id"] as? String)
        let (own, _) = try t.ward(
            ["lock", "--session", id, "--as", "alice", "--password-stdin"],
            input: TerminalHarness.password + "\n"
        )
        #expect(own == 0)
        try t.waitFor("locked by alice (ward lock)")
    }

    @Test func aSessionThatEnded_isNoLongerListed_andAKilledOnesEntryIsIgnored() throws {
        let t = try TerminalHarness(site: Self.site)
        try t.signOn()
        #expect(try sessions(t).count == 1)
        try t.enter("logout")
        _ = try t.waitForExit()
        #expect(try sessions(t).isEmpty)

        let terminated = try TerminalHarness(sharing: t)
        try terminated.signOn()
        #expect(try sessions(t).count == 1)
        kill(try terminated.wardPID(), SIGTERM)
        _ = try terminated.waitForExit()
        #expect(try sessions(t).isEmpty)

        let killed = try TerminalHarness(sharing: t)
        try killed.signOn()
        #expect(try sessions(t).count == 1)
        kill(try killed.wardPID(), SIGKILL)
        let sessionsDirectory = t.home.appendingPathComponent("sessions").path
        #expect(try t.ward(["sessions"]).1 == "No live sessions.\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: sessionsDirectory).isEmpty)
    }

    @Test func aMemberOfTheSitesAdminGroup_locksAnyoneWithoutAWardUser() throws {
        let group = try #require(getgrgid(getgid()).flatMap { $0.pointee.gr_name.map { String(cString: $0) } })
        let unixUser = try #require(getpwuid(getuid()).flatMap { $0.pointee.pw_name.map { String(cString: $0) } })
        let t = try TerminalHarness(site: "[session]\nadmin-group = \"\(group)\"\n\n" + Self.site)
        try t.signOn()
        let (status, out) = try t.ward(["lock", "--all"])
        #expect(status == 0)
        #expect(out.hasPrefix("Locked 1 session: "))
        try t.waitFor("Ward is locked: locked by Unix user \(unixUser) (ward lock). Signed on as alice.")
        let request = try #require(try auditRecords(t).last { $0["kind"] as? String == "lock-request" })
        #expect(
            request["by"] is NSNull && request["unix_user"] as? String == unixUser
                && request["target"] as? String == "all"
        )
    }

    @Test(.enabled(if: getuid() == 0, "root's own rule"))
    func root_locksAnyoneWithoutAWardUser_orAnAdminGroup() throws {
        let t = try TerminalHarness(site: Self.site)
        try t.signOn()
        let (status, out) = try t.ward(["lock", "--all"])
        #expect(status == 0)
        #expect(out.hasPrefix("Locked 1 session: "))
        try t.waitFor("Ward is locked: locked by Unix user root (ward lock). Signed on as alice.")
        let request = try #require(try auditRecords(t).last { $0["kind"] as? String == "lock-request" })
        #expect(request["by"] is NSNull && request["uid"] as? Int == 0 && request["outcome"] as? String == "ok")
    }

    @Test func theSitesBanner_isShownSanitized_beforeTheFirstPrompt() throws {
        let t = try TerminalHarness(
            site: "plugin = []\n[session]\nbanner = \"Authorized use only.\\u001B[2J Activity is monitored.\"\n"
                + TerminalHarness.unguarded
        )
        try t.waitFor("Username:")
        let screen = try t.screen()
        let notice = try #require(screen.range(of: "Authorized use only.\\e[2J Activity is monitored."))
        let prompt = try #require(screen.range(of: "Username:"))
        #expect(notice.upperBound <= prompt.lowerBound)
    }

    @Test func wardExec_showsTheBannerFirst_andIsLockedByWardLockToo() throws {
        try ExecEndToEndTests.requirePrograms("bash")
        let site = """
            [session]
            banner = "Exec notice: use is monitored."

            [exec]
            allow = ["bash"]

            [[plugin]]
            name = "audit-log"
            """ + TerminalHarness.unguarded
        let t = try TerminalHarness(["exec", "--user", TerminalHarness.user, "--", "bash", "--norc"], site: site)
        try t.waitFor("Password for alice:")
        let screen = try t.screen()
        let notice = try #require(screen.range(of: "Exec notice: use is monitored."))
        let prompt = try #require(screen.range(of: "Password for alice:"))
        #expect(notice.upperBound <= prompt.lowerBound)
        try t.enter(TerminalHarness.password)
        try t.waitFor("bash-")
        #expect(try sessions(t).map { $0["state"] as? String } == ["signed-on"])
        let (status, _) = try t.ward(
            ["lock", "--user", "alice", "--as", "alice", "--password-stdin"],
            input: TerminalHarness.password + "\n"
        )
        #expect(status == 0)
        try t.waitFor("Ward is locked: locked by alice (ward lock). Signed on as alice.")
        #expect(try sessions(t).map { $0["state"] as? String } == ["locked"])
    }
}
