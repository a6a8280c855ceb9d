import Testing
import WardCore
import WardShell

@Suite struct ShellTests {
    @Test func logout_exit_quit_allSignOff() {
        let shell = Shell()
        for word in ["logout", "exit", "quit"] {
            #expect(shell.run(Line(word)) == .signOff)
        }
    }

    @Test func unknownCommands_fail() {
        #expect(Shell().run(Line("frobnicate")) == .failed)
        #expect(Shell().run(Line("   ")) == .succeeded)
    }

    @Test func help_succeeds_forTheListAndForOneCommand_andFailsForNoSuchCommand() {
        let shell = Shell()
        #expect(shell.run(Line("help")) == .succeeded)
        #expect(shell.run(Line("help logout")) == .succeeded)
        #expect(shell.run(Line("help nope")) == .failed)
    }

    @Test func tabCompletesCommandNames() {
        #expect(Shell().completions(for: "he", before: "") == ["help"])
        #expect(Shell().completions(for: "lo", before: "help ") == ["lock", "logout"])
    }
}
