import Foundation
import Glibc
import Testing

/// With `[auth] source = "pam"`, sign-on, unlock and a batch's sign-on check the
/// system's password through the real libpam (pam_wrapper and pam_matrix stand in for
/// /etc/pam.d and /etc/shadow), while Ward's user list still says who may sign on.
///
/// The harness's alice also has a Ward password ("correct horse"): under PAM it must not sign on,
/// which shows the site's source, not the store's hash, decides.
@Suite(.serialized) struct PAMEndToEndTests {
    static let systemPassword = "system horse"

    @Test func theSystemsPasswordSignsOn_wardsOwnDoesNot_andPAMsWordsAreShownAsText() throws {
        let pam = try PAMWrapper(passdb: ["alice:\(Self.systemPassword):ward"], auth: "verbose")
        let t = try TerminalHarness(site: PAMWrapper.site(), environment: pam.environment)
        try t.waitFor("Username:")
        try t.enter(TerminalHarness.user)
        try t.waitFor("Password for alice:")
        try t.enter(TerminalHarness.password)  // Ward's own password: not the system's
        try t.waitFor("Authentication failed")  // pam_matrix's PAM_ERROR_MSG
        try t.waitFor("Wrong user name or password.")
        try t.waitFor("Username:", after: "Wrong user name or password.")  // after the 1 s delay
        try t.enter(TerminalHarness.user)
        // The first attempt's prompt is still on the screen: wait for the one after it.
        try t.waitFor("Password for alice:", after: "Wrong user name or password.")
        try t.enter(Self.systemPassword)
        try t.waitFor("ward>")
        try t.waitFor("Authentication succeeded")  // its PAM_TEXT_INFO, after the cleared screen
        try t.waitFor("There was 1 unsuccessful attempt since you last signed on.")
        #expect(!(try t.screenAndScrollback()).contains(Self.systemPassword))
        try t.enter("whoami")
        try t.waitFor("alice (clinician)")
        try t.press("C-d")
        #expect(try t.waitForExit() == 0)
    }

    @Test func aNameOnlyTheSystemKnows_isRefused_withoutAskingPAM() throws {
        let pam = try PAMWrapper(passdb: ["carol:carols password:ward"], auth: "verbose")
        let t = try TerminalHarness(site: PAMWrapper.site(), environment: pam.environment)
        try t.waitFor("Username:")
        try t.enter("carol")
        try t.waitFor("Password for carol:")
        try t.enter("carols password")
        try t.waitFor("Wrong user name or password.")
        // PAM never saw the name: pam_matrix would have said "Authentication succeeded".
        #expect(!(try t.screen()).contains("Authentication"))
        // Keys typed during the 1 s delay are discarded: wait for the prompt drawn after it.
        try t.waitFor("Username:", after: "Wrong user name or password.")
        try t.press("C-d")
        _ = try t.waitForExit()
    }

    @Test func afterAnIdleLock_theSystemsPasswordUnlocks_andWardsOwnDoesNot() throws {
        let pam = try PAMWrapper(passdb: ["alice:\(Self.systemPassword):ward"], auth: "verbose")
        let site = PAMWrapper.site(
            "[session]\nidle-timeout = \"2s\"\nwarn-before = \"0s\"\n\n[[plugin]]\nname = \"idle-timer\"\n"
        )
        let t = try TerminalHarness(site: site, environment: pam.environment)
        try t.signOn(password: Self.systemPassword)
        try t.waitFor("Ward is locked", timeout: .seconds(6))
        try t.waitFor("Password for alice:")
        try t.enter(TerminalHarness.password)
        try t.waitFor("Wrong password.")
        try t.waitFor("Password for alice:", after: "Wrong password.")  // after the 1 s delay
        try t.enter(Self.systemPassword)
        try t.waitFor("ward>")
        try t.waitFor("Authentication succeeded")  // the unlock's check, shown once unlocked
        try t.enter("whoami")
        try t.waitFor("alice (clinician)")
        try t.press("C-d")
        _ = try t.waitForExit()
    }

    /// A batch signs on from its password file through PAM; the Ward password that `ward demo`
    /// gave the user is refused.
    @Test func aBatch_signsOnWithTheSystemsPassword() throws {
        let pam = try PAMWrapper(passdb: ["demo:\(Self.systemPassword):ward"])
        let h = try BatchHome(site: PAMWrapper.site("[[plugin]]\nname = \"audit-log\"\n"), patients: 20)
        let systemFile = h.directory.appendingPathComponent("system-password").path
        try h.writeSecret(Self.systemPassword + "\n", to: systemFile)

        let signedOn = try batch(h, pam, ["--user", "demo", "--password-file", systemFile], lines: ["whoami"])
        #expect(signedOn.status == 0, "\(signedOn.error)")
        #expect(signedOn.output.contains("demo (clinician)"))

        let refused = try batch(h, pam, ["--user", "demo", "--password-file", h.passwordFile], lines: ["whoami"])
        #expect(refused.status == 77)
        #expect(refused.error.contains("Wrong user name or password."))
        #expect(!refused.output.contains("demo (clinician)"))
        let events = try h.auditRecords().compactMap { $0["kind"] as? String }
        #expect(events == ["sign-on", "command", "sign-off", "sign-on-failed"], "\(events)")
    }

    /// A batch whose pipe stalls past the idle timeout signs on again from its password file
    /// through PAM, and a password file that no longer holds the system's password stops it.
    @Test func aBatch_signsOnAgainAfterAnIdleLock_throughPAM() throws {
        let pam = try PAMWrapper(passdb: ["demo:\(Self.systemPassword):ward"])
        let h = try BatchHome(site: PAMWrapper.site(BatchLockAndSignalTests.quickIdleSite + "\n"), patients: 20)
        let systemFile = h.directory.appendingPathComponent("system-password").path
        try h.writeSecret(Self.systemPassword + "\n", to: systemFile)
        let p = try BatchProcess(
            ["--batch", "-", "--user", "demo", "--password-file", systemFile],
            environment: h.environment.merging(pam.environment) { $1 },
            directory: h.directory,
            descriptor3: nil
        )
        p.send("whoami")
        try p.waitFor("demo (clinician)")
        try p.waitFor("locked (idle) after <stdin>:1", inError: true, timeout: .seconds(5))
        p.send("whoami")
        try p.waitFor("signed on again from \(systemFile) before <stdin>:2", inError: true)
        try p.waitFor("locked (idle) after <stdin>:2", inError: true, timeout: .seconds(5))
        try h.writeSecret("not the system's any more\n", to: systemFile)
        p.send("whoami")
        #expect(try p.waitForExit() == 77)
        #expect(p.standardError.contains("no longer signs on demo; stopped before <stdin>:3"), "\(p.standardError)")
        let kinds = try h.auditRecords().compactMap { $0["kind"] as? String }
        #expect(kinds.filter { $0 == "unlock" || $0 == "unlock-failed" } == ["unlock", "unlock-failed"], "\(kinds)")
    }

    /// pam_acct_mgmt refuses an account whose password is right (pam_matrix: the user's service
    /// is not `ward`); PAM's own message comes first (pam_echo), with a terminal escape in it
    /// that must reach the screen as text.
    @Test func anAccountTheAccountStageRefuses_isRefusedWithPAMsMessage_sanitized() throws {
        let message = FileManager.default.temporaryDirectory.appendingPathComponent("ward-pam-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: message) }
        try "Your account has expired\u{1b}[2J; please contact your system administrator.\n".write(
            to: message,
            atomically: true,
            encoding: .utf8
        )
        let pam = try PAMWrapper(
            passdb: ["demo:\(Self.systemPassword):another-service"],
            accountFirst: ["account requisite pam_echo.so file=\(message.path)"]
        )
        let h = try BatchHome(site: PAMWrapper.site("[[plugin]]\nname = \"audit-log\"\n"), patients: 20)
        let systemFile = h.directory.appendingPathComponent("system-password").path
        try h.writeSecret(Self.systemPassword + "\n", to: systemFile)

        let refused = try batch(h, pam, ["--user", "demo", "--password-file", systemFile], lines: ["whoami"])
        #expect(refused.status == 77)
        #expect(
            refused.error.contains(
                "The system refused the account 'demo': Your account has expired\\e[2J; please contact your system administrator."
            ),
            "\(refused.error)"
        )
        #expect(!refused.error.contains("\u{1b}"))
        #expect(!refused.output.contains("demo (clinician)"))
        let failure = try h.auditRecords().first { $0["kind"] as? String == "sign-on-failed" }
        #expect(failure?["reason"] as? String == "account-refused")
        // A right password is no guess: nothing counts toward a lockout.
        let list = try TerminalHarness.run(TerminalHarness.wardPath, ["user", "list"], environment: h.environment)
        #expect(list.contains("demo  clinician  ward"), "\(list)")
        #expect(list.split(separator: "\n").last?.split(separator: " ").dropLast().last == "0", "\(list)")
    }

    /// A site naming a service the machine does not have: PAM would fall back to its `other`
    /// service and refuse every password as wrong, toward the lockout. Ward says what is wrong
    /// instead, as a configuration error (78), and counts nothing.
    @Test func aServiceTheMachineLacks_isAConfigurationError_notAWrongPassword() throws {
        let pam = try PAMWrapper(passdb: ["demo:\(Self.systemPassword):ward"])
        let site = PAMWrapper.site("[[plugin]]\nname = \"audit-log\"\n")
            .replacingOccurrences(of: "service = \"ward\"", with: "service = \"ward-absent\"")
        let h = try BatchHome(site: site, patients: 5)
        let systemFile = h.directory.appendingPathComponent("system-password").path
        try h.writeSecret(Self.systemPassword + "\n", to: systemFile)
        for _ in 0..<2 {
            let result = try batch(h, pam, ["--user", "demo", "--password-file", systemFile], lines: ["whoami"])
            #expect(result.status == 78)
            #expect(
                result.error.contains(
                    "The site checks passwords with PAM's service 'ward-absent', but \(pam.services.path)/ward-absent "
                        + "does not exist"
                ),
                "\(result.error)"
            )
            #expect(!result.error.contains("Wrong user name or password."))
        }
        let list = try TerminalHarness.run(TerminalHarness.wardPath, ["user", "list"], environment: h.environment)
        #expect(list.split(separator: "\n").last?.split(separator: " ").dropLast().last == "0", "\(list)")
    }

    /// libpam is loaded at the first PAM check, not at start: on a machine without it, a site
    /// whose passwords are the system's is refused at sign-on, with the reason and
    /// EX_UNAVAILABLE, and nothing is run. The test hides libpam behind a bind mount of
    /// /dev/null, in a mount namespace of its own.
    @Test(.enabled(if: geteuid() == 0, "needs root for a mount namespace"))
    func withoutLibpam_aPAMSiteIsRefusedAtSignOn_with69_andTheReason() throws {
        let pam = try PAMWrapper(passdb: ["demo:\(Self.systemPassword):ward"])
        let h = try BatchHome(site: PAMWrapper.site("[[plugin]]\nname = \"audit-log\"\n"), patients: 5)
        let systemFile = h.directory.appendingPathComponent("system-password").path
        try h.writeSecret(Self.systemPassword + "\n", to: systemFile)
        let script = h.directory.appendingPathComponent("script").path
        try "whoami\n".write(toFile: script, atomically: true, encoding: .utf8)
        let libpam = URL(fileURLWithPath: "/lib/x86_64-linux-gnu/libpam.so.0").resolvingSymlinksInPath().path
        let ward = [TerminalHarness.wardPath, "--batch", script, "--user", "demo", "--password-file", systemFile]
        let output = try TerminalHarness.run(
            "/usr/bin/unshare",
            [
                "-m", "/bin/sh", "-c",
                "mount --bind /dev/null \(libpam) && exec "
                    + ward.map(TerminalHarness.shellQuote).joined(separator: " ") + " 2>&1",
            ],
            environment: h.environment.merging(pam.environment) { $1 }
        )
        #expect(TerminalHarness.lastStatus == 69, "\(output)")
        #expect(
            output.contains("libpam cannot be loaded: /lib/x86_64-linux-gnu/libpam.so.0: file too short"),
            "\(output)"
        )
        #expect(!output.contains("demo (clinician)"))
    }

    /// A service that asks what Ward's one hidden prompt cannot answer (a visible prompt) fails
    /// closed, saying so, with EX_UNAVAILABLE.
    @Test func aPromptWardCannotAnswer_failsClosed_with69() throws {
        let pam = try PAMWrapper(passdb: ["demo:\(Self.systemPassword):ward"], auth: "echo")
        let h = try BatchHome(site: PAMWrapper.site("[[plugin]]\nname = \"audit-log\"\n"), patients: 20)
        let systemFile = h.directory.appendingPathComponent("system-password").path
        try h.writeSecret(Self.systemPassword + "\n", to: systemFile)
        let result = try batch(h, pam, ["--user", "demo", "--password-file", systemFile], lines: ["whoami"])
        #expect(result.status == 69)
        #expect(result.error.contains("PAM asked \"Password: \", which Ward cannot answer"), "\(result.error)")
    }

    /// contrib/pam.d/ward, as shipped, is a service Ward can use: its stacks (here pam_matrix
    /// behind common-auth and common-account) are asked for one password, and the account stage
    /// is consulted.
    @Test func theShippedServiceFile_signsOn_andConsultsTheAccountStage() throws {
        let shipped = try String(
            contentsOfFile: AuditRotationEndToEndTests.repository + "/contrib/pam.d/ward",
            encoding: .utf8
        )
        let h = try BatchHome(site: PAMWrapper.site("[[plugin]]\nname = \"audit-log\"\n"), patients: 20)
        let systemFile = h.directory.appendingPathComponent("system-password").path
        try h.writeSecret(Self.systemPassword + "\n", to: systemFile)

        let pam = try PAMWrapper(passdb: ["demo:\(Self.systemPassword):ward"], service: shipped)
        let signedOn = try batch(h, pam, ["--user", "demo", "--password-file", systemFile], lines: ["whoami"])
        #expect(signedOn.status == 0, "\(signedOn.error)")
        #expect(signedOn.output.contains("demo (clinician)"))

        let elsewhere = try PAMWrapper(passdb: ["demo:\(Self.systemPassword):sshd"], service: shipped)
        let refused = try batch(h, elsewhere, ["--user", "demo", "--password-file", systemFile], lines: ["whoami"])
        #expect(refused.status == 77)
        #expect(refused.error.contains("The system refused the account 'demo'"), "\(refused.error)")
    }

    /// `ward user add --pam` keeps no password and reads none; the list says whose password a
    /// user has; `passwd` refuses, naming passwd(1), before asking for anything.
    @Test func userCommands_addWithoutAPassword_listTheSource_andRefuseToSetOne() throws {
        let h = try BatchHome(patients: 5)
        let add = try TerminalHarness.run(
            TerminalHarness.wardPath,
            ["user", "add", "bob", "--role", "clerk", "--pam"],
            environment: h.environment
        )
        #expect(TerminalHarness.lastStatus == 0)
        #expect(add == "Added bob (clerk), who signs on with the system's password (PAM).\n")
        let list = try TerminalHarness.run(TerminalHarness.wardPath, ["user", "list"], environment: h.environment)
        let rows = list.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true) }
        #expect(rows.first?.prefix(4).map(String.init) == ["NAME", "ROLE", "PASSWORD", "LAST"])
        #expect(rows.first { $0.first == "bob" }?.prefix(4).map(String.init) == ["bob", "clerk", "system", "(pam)"])
        #expect(rows.first { $0.first == "demo" }?.prefix(3).map(String.init) == ["demo", "clinician", "ward"])

        _ = try TerminalHarness.run(
            TerminalHarness.wardPath,
            ["user", "passwd", "bob", "--password-stdin"],
            environment: h.environment,
            input: "a new password\n"
        )
        #expect(TerminalHarness.lastStatus == 1)
        _ = try TerminalHarness.run(
            TerminalHarness.wardPath,
            ["user", "add", "carol", "--role", "clerk", "--pam", "--password-stdin"],
            environment: h.environment,
            input: "pw\n"
        )
        #expect(TerminalHarness.lastStatus == 64)
        let kinds = try h.auditRecords().compactMap { $0["kind"] as? String }
        #expect(kinds == ["user-add", "user-add", "password-change", "password-change"], "\(kinds)")
    }

    /// A user the site's source never asks about cannot sign on: `user add` says so, and adds.
    @Test func userAdd_notesAUserTheSitesSourceWillNotCheck() throws {
        func add(_ arguments: String, site: String) throws -> String {
            let h = try BatchHome(site: site, patients: 5)
            let command = "\(TerminalHarness.shellQuote(TerminalHarness.wardPath)) user add \(arguments) 2>&1"
            return try TerminalHarness.run(
                "/bin/sh",
                ["-c", command],
                environment: h.environment,
                input: "a long password\n"
            )
        }
        let pamUser = try add(
            "bob --role clerk --pam",
            site: "[[plugin]]\nname = \"audit-log\"\n" + TerminalHarness.unguarded
        )
        #expect(TerminalHarness.lastStatus == 0)
        #expect(pamUser.contains("bob cannot sign on until it says source = \"pam\""), "\(pamUser)")
        let wardUser = try add(
            "carol --role clerk --password-stdin",
            site: PAMWrapper.site("[[plugin]]\nname = \"audit-log\"\n")
        )
        #expect(TerminalHarness.lastStatus == 0)
        #expect(wardUser.contains("the Ward password just set is not used"), "\(wardUser)")
    }

    /// `ward --batch -` with `lines` on standard input, in `home`, with pam_wrapper loaded.
    private func batch(
        _ home: BatchHome,
        _ pam: PAMWrapper,
        _ arguments: [String],
        lines: [String]
    ) throws -> (status: Int32, output: String, error: String) {
        let process = try BatchProcess(
            ["--batch", "-"] + arguments,
            environment: home.environment.merging(pam.environment) { $1 },
            directory: home.directory,
            descriptor3: nil
        )
        for line in lines { process.send(line) }
        process.closeInput()
        let status = try process.waitForExit(timeout: .seconds(20))
        return (status, process.standardOutput, process.standardError)
    }
}
