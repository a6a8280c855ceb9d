import Foundation
import Glibc
import Testing

/// `ward user remove` and `ward user disable` sign off the user's live sessions within a second,
/// each on record, and a disabled user cannot sign on until `ward user unlock`.
@Suite struct UserSignOffEndToEndTests {
    /// Adds bob (a clerk) and starts a batch signed on as him, waiting on standard input.
    private func bobsSession(_ h: BatchHome) throws -> (BatchProcess, password: String) {
        let add = try h.start(["user", "add", "bob", "--role", "clerk", "--password-stdin"])
        add.send("bobs password")
        add.closeInput()
        #expect(try add.waitForExit() == 0)
        let password = h.directory.appendingPathComponent("bob-password").path
        try h.writeSecret("bobs password\n", to: password)
        let session = try h.start(["--batch", "-", "--user", "bob", "--password-file", password])
        session.send("whoami")
        try session.waitFor("bob")
        return (session, password)
    }

    private func ward(_ h: BatchHome, _ arguments: [String]) throws -> (Int32, String, String) {
        let p = try h.start(arguments)
        p.closeInput()
        let status = try p.waitForExit()
        return (status, p.standardOutput, p.standardError)
    }

    @Test func removingAUser_signsOffTheirLiveSession_withinASecond_onRecord() throws {
        let h = try BatchHome(patients: 5)
        let (session, _) = try bobsSession(h)
        let started = ContinuousClock.now
        let (status, out, err) = try ward(h, ["user", "remove", "bob"])
        #expect(status == 0, "\(err)")
        #expect(out.hasPrefix("Removed bob. Signed off 1 session: "), "\(out)")
        #expect(try session.waitForExit(timeout: .seconds(2)) == 77)
        #expect(ContinuousClock.now - started < .seconds(2))
        #expect(session.standardError.contains("removed or disabled this account; signing off"))
        let signOff = try #require(try h.auditRecords().last { $0["kind"] as? String == "sign-off" })
        #expect(signOff["how"] as? String == "revoked" && signOff["user"] as? String == "bob")
        #expect(try h.verifyAudit() == 0)
    }

    @Test func disablingAUser_signsThemOff_andRefusesSignOn_untilUnlocked() throws {
        let h = try BatchHome(patients: 5)
        let (session, password) = try bobsSession(h)
        let (status, out, err) = try ward(h, ["user", "disable", "bob"])
        #expect(status == 0, "\(err)")
        #expect(out.hasPrefix("Disabled bob. Signed off 1 session: "), "\(out)")
        #expect(try session.waitForExit(timeout: .seconds(2)) == 77)

        let signOn = ["-c", "whoami", "--user", "bob", "--password-file", password]
        let (refused, _, refusal) = try ward(h, signOn)
        #expect(refused == 77)
        #expect(refusal.contains("The account 'bob' is disabled"), "\(refusal)")
        #expect(try ward(h, ["user", "list"]).1.contains("disabled"))
        let kinds = try h.auditRecords().compactMap { $0["kind"] as? String }
        #expect(kinds.filter { $0 == "user-disable" }.count == 2, "started, then ok")

        #expect(try ward(h, ["user", "unlock", "bob"]).0 == 0)
        #expect(try ward(h, signOn).0 == 0)
    }
}
