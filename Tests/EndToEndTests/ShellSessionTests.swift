import Foundation
import Glibc
import Testing

/// The engine end to end: the real binary in a pseudo-terminal, typed at as a person would.
@Suite(.serialized) struct ShellSessionTests {
    @Test func startsWithAPrompt_runsHelp_andExitsOnCtrlD_leavingTheTerminalCooked() throws {
        let t = try TerminalHarness()
        try t.signOn()
        try t.type("help")
        try t.press("Enter")
        try t.waitFor("Sign off and end the session.")
        try t.press("C-d")
        #expect(try t.waitForExit() == 0)
        #expect(isCooked(try t.terminalModeAfterExit()))
    }

    @Test func exitCommand_endsTheSession_andClearsTheScreen() throws {
        let t = try TerminalHarness()
        try t.signOn()
        try t.type("help")
        try t.press("Enter")
        try t.waitFor("Commands:")
        try t.type("exit")
        try t.press("Enter")
        #expect(try t.waitForExit() == 0)
        #expect(isCooked(try t.terminalModeAfterExit()))
        let after = try t.screenAndScrollback()
        #expect(!after.contains("Commands:"))
        #expect(after.contains("Signed off."))
    }

    @Test func ctrlC_cancelsTheLineBeingTyped() throws {
        let t = try TerminalHarness()
        try t.signOn()
        try t.type("frobnicate")
        try t.press("C-c")
        try t.type("help")
        try t.press("Enter")
        try t.waitFor("Commands:")
        #expect(!(try t.screen()).contains("unknown command"))
        try t.press("C-d")
        #expect(try t.waitForExit() == 0)
    }

    @Test func unknownCommand_saysSo_andTheShellGoesOn() throws {
        let t = try TerminalHarness()
        try t.signOn()
        try t.type("frobnicate")
        try t.press("Enter")
        try t.waitFor("ward: unknown command 'frobnicate'. Type 'help' for the list.")
        try t.type("exit")
        try t.press("Enter")
        #expect(try t.waitForExit() == 0)
    }

    @Test func aResize_rewrapsTheLineBeingTyped_andEditingGoesOn() throws {
        let t = try TerminalHarness(columns: 100, rows: 20)
        try t.signOn()
        let long = String(repeating: "x", count: 70)
        try t.type("help \(long)")
        try t.resize(columns: 40, rows: 20)
        try t.waitFor("ward> help xxxxxxxx")
        try t.press("C-u")
        try t.type("help logout")
        try t.press("Enter")
        try t.waitFor("Sign off and end the session.")
        try t.press("C-d")
        #expect(try t.waitForExit() == 0)
    }

    @Test func tabCompletesACommand() throws {
        let t = try TerminalHarness()
        try t.signOn()
        try t.type("hel")
        try t.press("Tab")
        try t.waitFor("ward> help")
        try t.press("Enter")
        try t.waitFor("Commands:")
        try t.press("C-d")
        #expect(try t.waitForExit() == 0)
    }

    @Test(arguments: [(SIGHUP, Int32(129)), (SIGTERM, Int32(143))])
    func aSignalEndsTheSession_andLeavesTheTerminalCooked(signal: Int32, status: Int32) throws {
        let t = try TerminalHarness()
        try t.signOn()
        try t.type("half-typed")
        let pid = try t.wardPID()
        kill(pid, signal)
        #expect(try t.waitForExit() == status)
        #expect(isCooked(try t.terminalModeAfterExit()))
        #expect(kill(pid, 0) != 0)  // no process left
    }

    @Test func ctrlZ_stopsWard_clearsTheScreen_andFgResumesTheLine() throws {
        // A job-control shell in the pane, as a clinician's login shell would be.
        let t = try TerminalHarness(["--version"])
        _ = try t.waitForExit()
        let shell = try TerminalHarness.runShellPane(t)
        try shell.startWardAndSignOn()
        try shell.type("help")
        try shell.press("Enter")
        try shell.waitFor("Commands:")
        try shell.type("half")
        // The terminal flushes keys Ward has not read yet when it turns ^Z into SIGTSTP.
        try shell.waitFor("ward> half")
        try shell.press("C-z")
        try shell.waitFor("Stopped")
        #expect(!(try shell.screenAndScrollback()).contains("Commands:"))
        try shell.type("stty -a | tr ' ;' '\\n\\n' | grep -xE 'icanon|echo' | sort | tr '\\n' ' '; echo")
        try shell.press("Enter")
        try shell.waitFor("echo icanon")
        try shell.type("fg")
        try shell.press("Enter")
        try shell.waitFor("ward> half")
        try shell.type("more")
        try shell.waitFor("ward> halfmore")
        try shell.press("C-u")
        try shell.type("exit")
        try shell.press("Enter")
        try shell.waitFor("Signed off.")
    }
}

extension TerminalHarness {
    /// A second window in the same tmux server running an interactive bash with job control.
    static func runShellPane(_ t: TerminalHarness) throws -> ShellPane {
        let name = "sh\(UInt16.random(in: 0...UInt16.max))"
        try t.tmux([
            "new-window", "-d", "-n", name, "env", "HOME=\(t.directory.path)", "WARD_HOME=\(t.home.path)",
            "WARD_SITE=\(t.siteFile.path)", "TZ=UTC",
            // No history file: bash writes one when tmux hangs up on it, which can be after the
            // harness has emptied its directory, and the directory is then left behind.
            "HISTFILE=", "PS1=$ ", "bash", "--norc", "--noprofile", "-i",
        ])
        return ShellPane(harness: t, target: name)
    }

    struct ShellPane {
        let harness: TerminalHarness
        let target: String

        func type(_ text: String) throws { try harness.tmux(["send-keys", "-t", target, "-l", text]) }

        /// Starts Ward from this job-control shell and signs on as alice.
        func startWardAndSignOn() throws {
            try type(TerminalHarness.shellQuote(TerminalHarness.wardPath))
            try press("Enter")
            try waitFor("Username:")
            try type(TerminalHarness.user)
            try press("Enter")
            try waitFor("Password for")
            try type(TerminalHarness.password)
            try press("Enter")
            try waitFor("ward>")
        }
        func press(_ keys: String...) throws { try harness.tmux(["send-keys", "-t", target] + keys) }
        func screen() throws -> String { try harness.tmux(["capture-pane", "-t", target, "-p"]) }
        func screenAndScrollback() throws -> String {
            try harness.tmux(["capture-pane", "-t", target, "-p", "-S", "-"])
        }
        func waitFor(_ text: String, timeout: Duration = .seconds(10)) throws {
            try eventually(
                "screen to show \(text.debugDescription)",
                timeout: timeout,
                detail: "Screen:\n" + ((try? screen()) ?? "(no screen)")
            ) { try screen().contains(text) }
        }
    }
}
