import Foundation
import Glibc
import Testing

/// Sign-on's scrypt buffers leave the process once the keys are derived (`mallopt` in
/// `returnLargeBlocksToTheKernel()`): a signed-on batch waiting for its next line holds far less
/// anonymous memory than one 16 MiB working buffer. Before, glibc kept the second buffer in its
/// heap for the rest of the session.
@Suite struct MemoryReturnEndToEndTests {
    /// scrypt's working buffer at the standard cost (logN 14, r 8): 128 · r · 2^14 bytes.
    static let scryptBuffer = 128 * 8 * (1 << 14)

    @Test func signedOnBatch_holdsNoScryptBuffer() throws {
        let h = try BatchHome(standardCost: true)
        let p = try h.start(["--batch", "-", "--user", "demo", "--password-file", h.passwordFile])
        // Signed on (both keys derived: the password's check and the resume key), then idle.
        p.send("whoami")
        try p.waitFor("demo")
        let anonymous = try Self.residentAnonymousBytes(of: p.pid)
        p.closeInput()
        #expect(try p.waitForExit() == 0)
        #expect(anonymous < Self.scryptBuffer, "anonymous resident memory \(anonymous) bytes after sign-on")
    }

    /// `RssAnon` of `/proc/PID/status`, in bytes.
    static func residentAnonymousBytes(of pid: pid_t) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("RssAnon:") }),
            let kib = line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap({ Int($0) })
        else { throw TerminalHarness.HarnessError.failed("no RssAnon in /proc/\(pid)/status") }
        return kib * 1024
    }
}
