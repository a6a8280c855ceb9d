import AuditLog
import Testing

/// A line is recorded by its command's name only: what the command did to a record comes from
/// the shell's access events, never from the line.
@Suite struct LineSummaryTests {
    /// The names the shell tells the plugins (`PluginEnvironment.commandNames`), as it did when
    /// this was written.
    let shell: Set<String> = [
        "help", "find", "open", "show", "note", "close", "charts", "whoami", "lock", "logout", "exit", "quit",
    ]

    @Test func open_recordsTheCommandOnly_theMRNComesFromTheAccess() {
        #expect(LineSummary("open MRN-1042", commands: shell) == LineSummary(command: "open"))
        // A Synthea MRN (a 36-character UUID) is no different: the line is not parsed for it.
        #expect(
            LineSummary("open 8f3e2a10-5c4b-4d1e-9a7f-2b6c0d9e1f35", commands: shell) == LineSummary(command: "open")
        )
    }

    @Test func note_recordsTheCommandOnly_neverTheText() {
        let summary = LineSummary("note Patient reports chest pain since 12 Nov", commands: shell)
        #expect(summary == LineSummary(command: "note"))
    }

    @Test func find_recordsNoQuery_byNameOrByMRN() {
        #expect(LineSummary("find Smith", commands: shell) == LineSummary(command: "find"))
        #expect(LineSummary("find John Smith", commands: shell) == LineSummary(command: "find"))
        #expect(LineSummary("find 123456", commands: shell) == LineSummary(command: "find"))
    }

    @Test func show_andHelp_recordTheCommandOnly() {
        #expect(LineSummary("show meds", commands: shell) == LineSummary(command: "show"))
        #expect(LineSummary("show diabetes", commands: shell) == LineSummary(command: "show"))
        #expect(LineSummary("help open", commands: shell) == LineSummary(command: "help"))
    }

    @Test func aliases_areCommands() {
        #expect(LineSummary("\texit", commands: shell) == LineSummary(command: "exit"))
        #expect(LineSummary("quit now", commands: shell) == LineSummary(command: "quit"))
    }

    @Test func unknownFirstWord_isNotRecorded() {
        // A password typed at the prompt by mistake, or a patient's name.
        #expect(LineSummary("hunter2", commands: shell) == LineSummary(command: "?"))
        #expect(LineSummary("Smith, John", commands: shell) == LineSummary(command: "?"))
        #expect(LineSummary("openx MRN-1", commands: shell) == LineSummary(command: "?"))
    }

    @Test func aNameTheShellDidNotTell_isNotRecorded_whateverItLooksLike() {
        #expect(LineSummary("open MRN-1", commands: ["find"]) == LineSummary(command: "?"))
        #expect(LineSummary("open MRN-1", commands: []) == LineSummary(command: "?"))
        #expect(LineSummary("rotate now", commands: shell.union(["rotate"])) == LineSummary(command: "rotate"))
    }

    @Test func blankLine_isNothingToRecord() {
        #expect(LineSummary("   ", commands: shell) == nil)
    }
}
