import Foundation
import Glibc
import Testing

/// Sign-on, the lock screen and the wipe, typed as a clinician would.
@Suite(.serialized) struct SignOnAndLockTests {
    @Test func aWrongPassword_isRefused_thenTheRightOneSignsOn_andSaysSo() throws {
        let t = try TerminalHarness()
        try t.waitFor("Username:")
        try t.enter(TerminalHarness.user)
        try t.waitFor("Password for alice:")
        try t.enter("not the password")
        try t.waitFor("Wrong user name or password.")
        // The prompt comes back after the 1 s delay; keys typed before it are discarded.
        try t.waitFor("Username:", after: "Wrong user name or password.")
        try t.signOn()
        try t.waitFor("There was 1 unsuccessful attempt since you last signed on.")
        try t.enter("whoami")
        try t.waitFor("alice (clinician)")
        try t.press("C-d")
        #expect(try t.waitForExit() == 0)
    }

    @Test func thePasswordIsNeverEchoed() throws {
        let t = try TerminalHarness()
        // Every byte the pane shows, whether or not it stays on the screen.
        let raw = t.directory.appendingPathComponent("pane.raw").path
        try t.tmux(["pipe-pane", "-o", "cat >> " + TerminalHarness.shellQuote(raw)])
        try t.waitFor("Username:")
        try t.enter(TerminalHarness.user)
        try t.waitFor("Password for alice:")
        try t.type(TerminalHarness.password)
        try t.press("Enter")
        try t.waitFor("ward>")
        try t.press("C-d")
        #expect(try t.waitForExit() == 0)
        try t.stopPipingPane(to: raw)
        let shown = String(decoding: try Data(contentsOf: URL(fileURLWithPath: raw)), as: UTF8.self)
        #expect(shown.contains("Password for alice:"), "control: the pane's output was copied")
        #expect(!shown.contains(TerminalHarness.password))
    }

    @Test func lock_clearsScreenScrollbackAndHistory_andThePasswordUnlocks() throws {
        let t = try TerminalHarness()
        try t.signOn()
        try t.enter("help")
        try t.waitFor("Commands:")
        try t.enter("lock")
        try t.waitFor("Ward is locked: locked by the user. Signed on as alice.")
        try t.waitFor("Password for alice:")
        #expect(!(try t.screenAndScrollback()).contains("Commands:"))
        try t.enter(TerminalHarness.password)
        try t.waitFor("ward>")
        try t.press("Up")  // history was wiped: nothing comes back
        try t.type("probe")  // typed after Up: once it shows, Up has been handled
        let screen = try t.waitFor("probe")
        #expect(!screen.contains("ward> lock") && !screen.contains("ward> help"))
        try t.press("C-u")
        try t.press("C-d")
        #expect(try t.waitForExit() == 0)
    }

    @Test func linesTypedAheadOfALock_areNeverRun_andTheUserIsTold() throws {
        let t = try TerminalHarness()
        try t.signOn()
        try t.type("lock\rwhoami\r")
        try t.waitFor("Password for alice:")
        #expect(!(try t.screenAndScrollback()).contains("alice (clinician)"))
        try t.enter(TerminalHarness.password)
        try t.waitFor("1 line typed while locked was discarded, not run.")
        #expect(!(try t.screen()).contains("alice (clinician)"))
        try t.press("C-d")
        #expect(try t.waitForExit() == 0)
    }

    @Test func ctrlD_atTheLockScreen_signsOffEntirely() throws {
        let t = try TerminalHarness()
        try t.signOn()
        try t.enter("lock")
        try t.waitFor("Password for alice:")
        try t.press("C-d")
        #expect(try t.waitForExit() == 0)
        #expect(isCooked(try t.terminalModeAfterExit()))
    }

    @Test func aWrongPasswordAtTheLockScreen_keepsItLocked() throws {
        let t = try TerminalHarness()
        try t.signOn()
        try t.enter("lock")
        try t.waitFor("Password for alice:")
        try t.enter("guess")
        try t.waitFor("Wrong password.")
        // The prompt comes back after the 1 s delay; keys typed before it are discarded.
        try t.waitFor("Password for alice:", after: "Wrong password.")
        try t.enter(TerminalHarness.password)
        try t.waitFor("ward>")
        try t.press("C-d")
        #expect(try t.waitForExit() == 0)
    }
}

/// The wipe, proved on a core image of the live process (`gcore`, as root: Ward is not dumpable,
/// and only root can read it). The control takes the same image before the lock and must find
/// the canary, so the test can fail.
@Suite(.serialized, .enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/gcore")))
struct WipeCoreImageTests {
    /// Made at run time, so the canary is in no binary and no source file.
    static func canary() -> String {
        "zq" + String((0..<14).map { _ in "abcdefghjkmnpqrstuvwxy".randomElement()! })
    }

    func coreImage(of pid: Int32, in directory: URL) throws -> Data {
        let prefix = directory.appendingPathComponent("core").path
        _ = try TerminalHarness.run("/usr/bin/gcore", ["-o", prefix, "\(pid)"])
        let file = URL(fileURLWithPath: "\(prefix).\(pid)")
        defer { try? FileManager.default.removeItem(at: file) }
        return try Data(contentsOf: file)
    }

    func occurrences(of text: String, in core: Data) -> Int {
        let needle = Data(text.utf8)
        var count = 0
        var range = core.startIndex..<core.endIndex
        while let found = core.range(of: needle, in: range) {
            count += 1
            range = found.upperBound..<core.endIndex
        }
        return count
    }

    @Test func afterALock_aTypedCanaryIsNowhereInMemoryNorOnScreen() throws {
        let t = try TerminalHarness()
        try t.signOn()
        let canary = Self.canary()
        let killed = Self.canary()
        try t.enter("help \(canary)")  // a command: into history, onto the screen
        try t.waitFor("ward>")
        try t.type("note \(killed)")  // typed, then killed with C-u: into the kill ring
        try t.press("C-u")
        try t.press("C-r")  // a search for part of it: readline's search strings
        try t.type(String(canary.prefix(8)))
        try t.press("C-g")
        let pid = try t.wardPID()

        let before = try coreImage(of: pid, in: t.directory)
        #expect(occurrences(of: canary, in: before) > 0, "control: the canary must be in memory before the lock")

        try t.press("C-u")
        try t.enter("lock")
        try t.waitFor("Password for alice:")
        try t.waitUntilLocked()
        let after = try coreImage(of: pid, in: t.directory)
        #expect(occurrences(of: canary, in: after) == 0)
        #expect(occurrences(of: String(canary.suffix(8)), in: after) == 0)
        #expect(occurrences(of: killed, in: after) == 0)
        #expect(!(try t.screenAndScrollback()).contains(canary))
        try t.press("C-d")
        #expect(try t.waitForExit() == 0)
    }

    @Test func afterALock_anOpenedPatientsNameIsNowhereInMemoryNorOnScreen() throws {
        let t = try TerminalHarness()
        let family = "Zq" + Self.canary().dropFirst(2).prefix(10)  // a surname no binary holds
        let bundle = t.directory.appendingPathComponent("canary.json")
        try Data(Self.bundle(family: String(family), mrn: "C0000001").utf8).write(to: bundle)
        try TerminalHarness.run(
            TerminalHarness.wardPath,
            ["import", bundle.path],
            environment: ["WARD_HOME": t.home.path, "WARD_SITE": t.siteFile.path, "HOME": t.directory.path]
        )
        #expect(TerminalHarness.lastStatus == 0)
        try t.signOn()
        try t.enter("open C0000001")
        try t.waitFor("Opened C0000001")
        try t.enter("show")
        try t.waitFor(String(family))
        let pid = try t.wardPID()

        let before = try coreImage(of: pid, in: t.directory)
        #expect(occurrences(of: String(family), in: before) > 0, "control: the name must be in memory before the lock")

        try t.enter("lock")
        try t.waitFor("Password for alice:")
        try t.waitUntilLocked()
        let after = try coreImage(of: pid, in: t.directory)
        #expect(occurrences(of: String(family), in: after) == 0)
        #expect(!(try t.screenAndScrollback()).contains(String(family)))
        try t.enter(TerminalHarness.password)
        try t.waitFor("C0000001]>")  // reopened (resume), from the store reopened after sign-on
        try t.enter("show")
        try t.waitFor(String(family))
        try t.press("C-d")
        #expect(try t.waitForExit() == 0)
    }

    /// `find` keeps its rows' MRNs for `open N`: after a lock, neither the listed patient's name
    /// nor the MRN (which the user never typed) is in memory or on screen.
    @Test func afterALock_aFindsRowsAreNowhereInMemoryNorOnScreen() throws {
        let t = try TerminalHarness()
        let family = "Zq" + Self.canary().dropFirst(2).prefix(10)
        let mrn = "M" + Self.canary().uppercased()
        let bundle = t.directory.appendingPathComponent("canary.json")
        try Data(Self.bundle(family: String(family), mrn: mrn).utf8).write(to: bundle)
        try TerminalHarness.run(
            TerminalHarness.wardPath,
            ["import", bundle.path],
            environment: ["WARD_HOME": t.home.path, "WARD_SITE": t.siteFile.path, "HOME": t.directory.path]
        )
        #expect(TerminalHarness.lastStatus == 0)
        try t.signOn()
        try t.enter("find \(family.prefix(6))")
        try t.waitFor(mrn)
        let pid = try t.wardPID()

        let before = try coreImage(of: pid, in: t.directory)
        #expect(occurrences(of: mrn, in: before) > 0, "control: the MRN must be in memory before the lock")

        try t.enter("lock")
        try t.waitFor("Password for alice:")
        try t.waitUntilLocked()
        let after = try coreImage(of: pid, in: t.directory)
        #expect(occurrences(of: mrn, in: after) == 0)
        #expect(occurrences(of: String(family), in: after) == 0)
        #expect(!(try t.screenAndScrollback()).contains(mrn))
        try t.enter(TerminalHarness.password)
        try t.waitFor("ward>")
        try t.enter("open 1")  // the rows went with the lock
        try t.waitFor("there is no row 1 to open")
        try t.press("C-d")
        #expect(try t.waitForExit() == 0)
    }

    /// A batch whose pipe stalls past the idle timeout wipes what it loaded, as a person's
    /// session does: the opened patient's name is in memory before, and nowhere after.
    @Test func afterABatchsIdleLock_anOpenedPatientsNameIsNowhereInMemory() throws {
        let h = try BatchHome(site: BatchLockAndSignalTests.quickIdleSite)
        let family = "Zq" + Self.canary().dropFirst(2).prefix(10)
        let bundle = h.directory.appendingPathComponent("canary.json")
        try Data(Self.bundle(family: String(family), mrn: "C0000001").utf8).write(to: bundle)
        try TerminalHarness.run(TerminalHarness.wardPath, ["import", bundle.path], environment: h.environment)
        #expect(TerminalHarness.lastStatus == 0)
        let p = try h.start(["--user", "demo", "--password-file", h.passwordFile])
        p.send("open C0000001", "show")
        try p.waitFor("Name            \(family), Canary")
        let before = try coreImage(of: p.pid, in: h.directory)
        #expect(occurrences(of: String(family), in: before) > 0, "control: the name must be in memory before the lock")

        try p.waitFor("locked (idle) after <stdin>:2", inError: true)
        try TerminalHarness.waitUntilLocked(home: h.home)
        let after = try coreImage(of: p.pid, in: h.directory)
        #expect(occurrences(of: String(family), in: after) == 0)
        p.closeInput()
        #expect(try p.waitForExit() == 0)
    }

    /// A one-patient FHIR R4 bundle, as Synthea writes them; `restricted` adds the security label R.
    static func bundle(family: String, mrn: String, restricted: Bool = false) -> String {
        """
        {"resourceType": "Bundle", "type": "transaction", "entry": [{"fullUrl": "urn:uuid:p1", "resource": {
          "resourceType": "Patient", "id": "p1",\(restricted ? #" "meta": {"security": [{"code": "R"}]},"# : "")
          "name": [{"use": "official", "given": ["Canary"], "family": "\(family)"}],
          "birthDate": "1970-01-02", "gender": "female",
          "identifier": [{"type": {"coding": [{"system": "http://terminology.hl7.org/CodeSystem/v2-0203", "code": "MR"}]},
                          "value": "\(mrn)"}]}}]}
        """
    }
}

/// What a clinician did, as the audit log recorded it: the default chain, in the real binary.
@Suite(.serialized) struct AuditTrailEndToEndTests {
    @Test func aSessionsAuditTrail_matchesWhatWasDone_andVerifies() throws {
        let t = try TerminalHarness(
            site: """
                [[plugin]]
                name = "idle-timer"

                [[plugin]]
                name = "audit-log"

                [[plugin]]
                name = "suspend-guard"
                """
        )
        try t.signOn()
        try t.enter("whoami")
        try t.waitFor("alice (clinician)")
        try t.enter("lock")
        try t.waitFor("Password for alice:")
        try t.enter(TerminalHarness.password)
        try t.waitFor("ward>")
        try t.press("C-d")
        #expect(try t.waitForExit() == 0)

        let env = ["WARD_HOME": t.home.path, "WARD_SITE": t.siteFile.path, "HOME": t.directory.path]
        let verify = try TerminalHarness.run(TerminalHarness.wardPath, ["audit", "verify"], environment: env)
        #expect(TerminalHarness.lastStatus == 0)
        #expect(verify.contains("chain intact"))
        let show = try TerminalHarness.run(
            TerminalHarness.wardPath,
            ["audit", "show", "--format", "json"],
            environment: env
        )
        let events = show.split(separator: "\n").compactMap { line -> String? in
            guard let range = line.range(of: "\"kind\":\"") else { return nil }
            return String(line[range.upperBound...].prefix { $0 != "\"" })
        }
        // `ward user add alice` made the home: its records (started, then ok), then the session's.
        #expect(events == ["user-add", "user-add", "sign-on", "command", "command", "lock", "unlock", "sign-off"])
        #expect(!show.contains(TerminalHarness.password))
    }

    /// Break the glass: `open` of a restricted chart asks why, and the answer is the audit
    /// record's reason, not a command.
    @Test func openingARestrictedChart_asksWhy_andTheReasonIsAudited() throws {
        let t = try TerminalHarness(site: "[[plugin]]\nname = \"audit-log\"\n" + TerminalHarness.unguarded)
        let env = ["WARD_HOME": t.home.path, "WARD_SITE": t.siteFile.path, "HOME": t.directory.path]
        let bundle = t.directory.appendingPathComponent("restricted.json")
        try Data(WipeCoreImageTests.bundle(family: "Hopper", mrn: "R0000001", restricted: true).utf8).write(to: bundle)
        try TerminalHarness.run(TerminalHarness.wardPath, ["import", bundle.path], environment: env)
        #expect(TerminalHarness.lastStatus == 0)
        try t.signOn()
        try t.enter("open R0000001")
        try t.waitFor("Why do you open it?")
        try t.enter("")
        try t.waitFor("R0000001 was not opened")
        try t.enter("open R0000001")
        try t.waitFor("Why do you open it?")
        try t.enter("on call, chest pain")
        try t.waitFor("Opened R0000001: Hopper, Canary")
        try t.waitFor("R0000001]>")
        try t.press("C-d")
        #expect(try t.waitForExit() == 0)

        let show = try TerminalHarness.run(
            TerminalHarness.wardPath,
            ["audit", "show", "--format", "json"],
            environment: env
        )
        let records = show.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(
            records.compactMap { $0["kind"] as? String } == [
                "user-add", "user-add", "import", "import", "sign-on", "command", "access", "command", "break-glass",
                "access", "sign-off",
            ]
        )
        let glass = records.first { $0["kind"] as? String == "break-glass" }
        #expect(glass?["mrn"] as? String == "R0000001" && glass?["reason"] as? String == "on call, chest pain")
        #expect(glass?["outcome"] as? String == "ok")
        let opens = records.filter { $0["kind"] as? String == "access" }
        #expect(opens.map { $0["action"] as? String } == ["open", "open"])
        #expect(opens.map { $0["mrn"] as? String } == ["R0000001", "R0000001"])
        #expect(opens.map { $0["outcome"] as? String } == ["denied", "ok"], "the empty answer opened nothing")
    }
}
