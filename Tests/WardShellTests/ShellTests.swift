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

@Suite struct CompletionTests {
    @Test func tabCompletes_newCommandNames() {
        #expect(Shell().completions(for: "c", before: "") == ["charts", "close", "correct"])
        #expect(Shell().completions(for: "", before: "").contains("find"))
    }

    @Test func tabCompletes_showSections() {
        #expect(Shell().completions(for: "l", before: "show ") == ["labs"])
        #expect(Shell().completions(for: "", before: "show ").count == 14)
        #expect(Shell().completions(for: "", before: "show labs ").isEmpty)
    }

    @Test func tabCompletes_loadedMRNs_forOpenAndClose() throws {
        let f = try ShellFixture()
        #expect(f.shell.completions(for: "M", before: "open ").isEmpty)
        f.run("open M1")
        f.run("open M2")
        #expect(f.shell.completions(for: "M", before: "open ") == ["M1", "M2"])
        #expect(f.shell.completions(for: "", before: "close ") == ["M1", "M2"])
        #expect(f.shell.completions(for: "M", before: "note ").isEmpty)
    }
}
