import Foundation
import Glibc
import Testing

/// The password handed to PAM does not outlive its check: after a sign-on attempt through PAM,
/// the typed password is nowhere in a core image of the process (Ward's buffer zeroed, the copy
/// the conversation gave PAM zeroed and freed with the transaction). A wrong password, so that
/// pam_matrix's own database, which holds the right one in clear, cannot put the canary in
/// memory itself. The control: pam_faildelay holds the failed transaction open for 2 s, and an
/// image taken then must find the password.
@Suite(.serialized, .enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/gcore")))
struct PAMWipeTests {
    @Test func afterAPAMCheck_theTypedPasswordIsNowhereInMemory() throws {
        let wipe = WipeCoreImageTests()
        let pam = try PAMWrapper(
            passdb: ["alice:\(PAMEndToEndTests.systemPassword):ward"],
            authFirst: ["auth optional pam_faildelay.so delay=2000000"]
        )
        let t = try TerminalHarness(site: PAMWrapper.site(), environment: pam.environment)
        let canary = WipeCoreImageTests.canary()
        try t.waitFor("Username:")
        try t.enter(TerminalHarness.user)
        try t.waitFor("Password for alice:")
        let pid = try t.wardPID()
        try t.enter(canary)
        // Within pam_faildelay's 2 s, inside pam_authenticate: libpam waits out the delay in
        // `select` before it returns, so a Ward in that call is in the middle of the check.
        try eventually("ward in pam_faildelay's delay") { Self.isInSelect(pid) }
        let during = try wipe.coreImage(of: pid, in: t.directory)
        #expect(wipe.occurrences(of: canary, in: during) > 0, "control: PAM holds the password during its check")
        try t.waitFor("Wrong user name or password.")
        // The prompt drawn again after the failure's delay: the attempt is over.
        try t.waitFor("Username:", after: "Wrong user name or password.")
        let after = try wipe.coreImage(of: pid, in: t.directory)
        #expect(wipe.occurrences(of: canary, in: after) == 0)
        try t.press("C-d")
        _ = try t.waitForExit()
    }

    /// Whether a thread of `pid` is in `select` or `pselect6` (x86-64 system calls 23 and 270),
    /// as `/proc/PID/task/TID/syscall` shows it: where libpam's delay waits. Ward's own loop
    /// waits in `ppoll`, so nothing else of Ward's is there.
    private static func isInSelect(_ pid: pid_t) -> Bool {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.contains { task in
            let call = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/syscall", encoding: .utf8)) ?? ""
            return ["23", "270"].contains(call.split(separator: " ").first.map(String.init) ?? "")
        }
    }
}
