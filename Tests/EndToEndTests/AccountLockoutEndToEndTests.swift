import Foundation
import Glibc
import Testing

/// The account lockout through the real binary in batch mode: failures are counted across processes,
/// the account locks after `max-failed-attempts`, and `ward user unlock` ends the lock.
@Suite(.serialized) struct AccountLockoutEndToEndTests {
    /// One batch sign-on as `user` with the password in `h.passwordFile`: exit status and stderr.
    private func signOn(_ h: BatchHome, user: String = "demo") throws -> (status: Int32, error: String) {
        let p = try h.start(["--batch", try h.script(["whoami"]), "--user", user, "--password-file", h.passwordFile])
        p.closeInput()
        let status = try p.waitForExit()
        return (status, p.standardError)
    }

    @Test func fiveWrongPasswords_lockTheAccount_evenAgainstTheRightOne_untilUnlocked() throws {
        let h = try BatchHome(site: "[session]\nmax-failed-attempts = 5\nlockout = \"15m\"\n", patients: 5)
        try h.writeSecret("not the password\n", to: h.passwordFile)
        for attempt in 1...5 {
            let (status, error) = try signOn(h)
            #expect(status == 77, "attempt \(attempt)")
            #expect(error.contains("Wrong user name or password."), "attempt \(attempt): \(error)")
        }
        try h.writeSecret("demo\n", to: h.passwordFile)
        let (status, error) = try signOn(h)
        #expect(status == 77)
        #expect(error.contains("locked until"), "\(error)")
        #expect(error.contains("ward user unlock demo"), "\(error)")

        let list = try h.start(["user", "list"])
        #expect(try list.waitForExit() == 0)
        let row = list.standardOutput.split(separator: "\n").first { $0.hasPrefix("demo ") } ?? ""
        #expect(list.standardOutput.contains("LOCKED UNTIL"))
        #expect(row.contains(" 5 ") && !row.hasSuffix(" -"), "\(list.standardOutput)")

        let unlock = try h.start(["user", "unlock", "demo"])
        #expect(try unlock.waitForExit() == 0)
        #expect(unlock.standardOutput.contains("Unlocked demo."))
        let after = try signOn(h)
        #expect(after.status == 0, "\(after.error)")
    }

    @Test func aLockedAccount_isRefusedAtTheShellsSignOnToo() throws {
        let h = try BatchHome(site: "[session]\nmax-failed-attempts = 2\n", patients: 5)
        try h.writeSecret("not the password\n", to: h.passwordFile)
        for _ in 1...2 { #expect(try signOn(h).status == 77) }
        let shell = try TerminalHarness(["--home", h.home, "--site", h.site, "--user", "demo"])
        try shell.waitFor("Password for demo:")
        try shell.type("demo")
        try shell.press("Enter")
        try shell.waitFor("locked until")
        #expect(try shell.waitForExit() == 77)
    }

    @Test func anUnknownUser_getsTheSameAnswerAsAWrongPassword() throws {
        let h = try BatchHome(patients: 5)
        try h.writeSecret("not the password\n", to: h.passwordFile)
        let unknown = try signOn(h, user: "mallory")
        let wrong = try signOn(h, user: "demo")
        #expect(unknown.status == 77 && wrong.status == 77)
        #expect(unknown.error == wrong.error)
    }

    @Test func anUnknownName_locksAfterTheSameFailures_inTheSameWords_andIsNeverRecorded() throws {
        let h = try BatchHome(site: "[session]\nmax-failed-attempts = 5\nlockout = \"15m\"\n", patients: 5)
        try h.writeSecret("not the password\n", to: h.passwordFile)
        for user in ["demo", "mallory"] {
            for attempt in 1...5 {
                #expect(try signOn(h, user: user).status == 77, "\(user), attempt \(attempt)")
            }
        }
        let known = try signOn(h, user: "demo")
        let unknown = try signOn(h, user: "mallory")
        #expect(known.status == 77 && unknown.status == 77)
        #expect(unknown.error.contains("The account 'mallory' is locked until"), "\(unknown.error)")
        // The same words but the name (and the lock's end, which may fall in another minute).
        for (error, name) in [(known.error, "demo"), (unknown.error, "mallory")] {
            #expect(error.contains("The account '\(name)' is locked until "), "\(error)")
            #expect(error.contains(" after too many failed attempts; try again then, or have it unlocked with "))
        }
        let locked = try h.auditRecords().filter { $0["reason"] as? String == "account-locked" }
        #expect(locked.count == 2 && locked[1]["user"] is NSNull, "the unknown name is not recorded")
        #expect(!(try String(contentsOfFile: h.home + "/audit.jsonl", encoding: .utf8)).contains("mallory"))
    }

    @Test func unlockingAUserWhoIsNotThere_saysSo() throws {
        let h = try BatchHome(patients: 5)
        let p = try h.start(["user", "unlock", "nobody"])
        #expect(try p.waitForExit() == 1)
        #expect(p.standardError.contains("No user named 'nobody'"))
    }
}
