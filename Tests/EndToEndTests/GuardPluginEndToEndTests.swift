import Foundation
import Glibc
import Testing

/// The guard plugins in the real binary, with real short timeouts (a second or two).
@Suite(.serialized) struct GuardPluginEndToEndTests {
    @Test func idleTimer_warnsAboveThePrompt_thenLocks_andTheHalfTypedLineIsGone() throws {
        let t = try TerminalHarness(
            site: """
                [session]
                idle-timeout = "2s"
                warn-before = "1s"

                [[plugin]]
                name = "idle-timer"
                """ + TerminalHarness.unguarded
        )
        try t.signOn()
        try t.type("halftyped")
        try t.waitFor("ward: locking in", timeout: .seconds(5))
        #expect(try t.screen().contains("ward> halftyped"))  // the line survives the notice
        try t.waitFor("Ward is locked: no activity. Signed on as alice.", timeout: .seconds(5))
        #expect(!(try t.screenAndScrollback()).contains("halftyped"))
        try t.unlock()
        try t.waitFor("ward>")
        try t.press("C-d")
        #expect(try t.waitForExit() == 0)
    }

    @Test func idleTimer_aKeyPressPutsTheLockOff() throws {
        let t = try TerminalHarness(
            site: """
                [session]
                idle-timeout = "3s"
                warn-before = "0s"

                [[plugin]]
                name = "idle-timer"
                """ + TerminalHarness.unguarded
        )
        try t.signOn()
        // Typing for longer than the idle timeout, a key every half second. The pauses are the
        // real idle time under test (the binary's clock cannot be injected); each key then waits
        // for its echo, so a loaded machine adds only its own lag to a pause.
        let start = ContinuousClock.now
        for typed in 1...8 {
            Thread.sleep(forTimeInterval: 0.5)
            try t.type("x")
            try t.waitFor("ward> " + String(repeating: "x", count: typed))
        }
        #expect(ContinuousClock.now - start > .seconds(3), "control: typed for longer than the idle timeout")
        #expect(!(try t.screen()).contains("Ward is locked"))
        try t.waitFor("Ward is locked", timeout: .seconds(5))
        try t.press("C-d")
        #expect(try t.waitForExit() == 0)
    }

    @Test func focusGuard_locksAfterFocusIsLost_andFocusBackInTimePutsItOff() throws {
        let t = try TerminalHarness(
            site: """
                [[plugin]]
                name = "focus-guard"
                after = "1s"
                """ + TerminalHarness.unguarded
        )
        try t.signOn()
        // The pauses are the real time under test (the binary's clock cannot be injected): out of
        // focus for a while, back within the limit, then past the limit with nothing locking.
        try t.type("\u{1B}[O")  // focus out, as the terminal reports it
        Thread.sleep(forTimeInterval: 0.3)
        try t.type("\u{1B}[I")  // and back in before the limit
        Thread.sleep(forTimeInterval: 1.5)
        let screen = try t.screen()
        #expect(!screen.contains("Ward is locked"))
        #expect(!screen.contains("[O") && !screen.contains("[I"))  // never reached readline
        try t.type("\u{1B}[O")
        try t.waitFor("Ward is locked: the window was out of focus.", timeout: .seconds(5))
        try t.press("C-d")
        #expect(try t.waitForExit() == 0)
    }

    @Test func suspendGuard_awayLongerThanTheGrace_locksOnFg() throws {
        let t = try TerminalHarness(
            ["--version"],
            site: """
                [[plugin]]
                name = "suspend-guard"
                grace = "1s"
                """ + TerminalHarness.unguarded
        )
        _ = try t.waitForExit()
        let shell = try TerminalHarness.runShellPane(t)
        try shell.startWardAndSignOn()
        try shell.type("within")
        // The terminal flushes keys Ward has not read yet when it turns ^Z into SIGTSTP.
        try shell.waitFor("ward> within")
        try shell.press("C-z")
        try shell.waitFor("Stopped")
        try shell.type("fg")
        try shell.press("Enter")
        try shell.waitFor("ward> within")  // back within the grace: as it was

        try shell.press("C-z")
        try shell.waitFor("Stopped")
        Thread.sleep(forTimeInterval: 1.5)  // away past the grace, in real time: what is under test
        try shell.type("fg")
        try shell.press("Enter")
        try shell.waitFor("Ward is locked: away after Ctrl-Z. Signed on as alice.")
        #expect(!(try shell.screen()).contains("ward> within"))
        try shell.press("C-d")
        try shell.waitFor("Signed off.")
    }

    @Test func startedInTheBackground_wardStopsOnTheTerminal_andFgSignsOn() throws {
        let t = try TerminalHarness(["--version"])
        _ = try t.waitForExit()
        let shell = try TerminalHarness.runShellPane(t)
        try shell.type("\(TerminalHarness.shellQuote(TerminalHarness.wardPath)) --user alice &")
        try shell.press("Enter")
        // SIGTTOU/SIGTTIN: stopped, not spinning. Bash reports a stopped job at its next prompt.
        try eventually("bash to report ward stopped", detail: (try? shell.screen()) ?? "") {
            if try shell.screen().contains("Stopped") { return true }
            try shell.press("Enter")
            return false
        }
        try shell.type("fg")
        try shell.press("Enter")
        try shell.waitFor("Password for alice:")
        try shell.type(TerminalHarness.password)
        try shell.press("Enter")
        try shell.waitFor("ward>")
        try shell.press("C-d")
        try shell.waitFor("Signed off.")
    }
}
