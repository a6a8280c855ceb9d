import AuditLog
import Testing

/// A line is recorded by its command's name only: what the command did to a record comes from
/// the shell's access events, never from the line.
@Suite struct LineSummaryTests {
    @Test func open_recordsTheCommandOnly_theMRNComesFromTheAccess() {
        #expect(LineSummary("open MRN-1042") == LineSummary(command: "open"))
        // A Synthea MRN (a 36-character UUID) is no different: the line is not parsed for it.
        #expect(LineSummary("open 8f3e2a10-5c4b-4d1e-9a7f-2b6c0d9e1f35") == LineSummary(command: "open"))
    }

    @Test func note_recordsTheCommandOnly_neverTheText() {
        let summary = LineSummary("note Patient reports chest pain since 12 Nov")
        #expect(summary == LineSummary(command: "note"))
    }

    @Test func find_recordsNoQuery_byNameOrByMRN() {
        #expect(LineSummary("find Smith") == LineSummary(command: "find"))
        #expect(LineSummary("find John Smith") == LineSummary(command: "find"))
        #expect(LineSummary("find 123456") == LineSummary(command: "find"))
    }

    @Test func show_andHelp_recordTheCommandOnly() {
        #expect(LineSummary("show meds") == LineSummary(command: "show"))
        #expect(LineSummary("show diabetes") == LineSummary(command: "show"))
        #expect(LineSummary("help open") == LineSummary(command: "help"))
    }

    @Test func aliases_areCommands() {
        #expect(LineSummary("\texit") == LineSummary(command: "exit"))
        #expect(LineSummary("quit now") == LineSummary(command: "quit"))
    }

    @Test func unknownFirstWord_isNotRecorded() {
        // A password typed at the prompt by mistake, or a patient's name.
        #expect(LineSummary("hunter2") == LineSummary(command: "?"))
        #expect(LineSummary("Smith, John") == LineSummary(command: "?"))
        #expect(LineSummary("openx MRN-1") == LineSummary(command: "?"))
    }

    @Test func blankLine_isNothingToRecord() {
        #expect(LineSummary("   ") == nil)
    }
}
