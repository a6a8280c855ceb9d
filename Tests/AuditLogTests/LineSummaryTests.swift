import AuditLog
import Testing

@Suite struct LineSummaryTests {
    @Test func open_recordsTheMRN() {
        #expect(LineSummary("open MRN-1042") == LineSummary(command: "open", mrn: "MRN-1042"))
    }

    @Test func note_recordsTheCommandOnly_neverTheText() {
        let summary = LineSummary("note Patient reports chest pain since 12 Nov")
        #expect(summary == LineSummary(command: "note"))
    }

    @Test func findByName_recordsNoQuery() {
        #expect(LineSummary("find Smith") == LineSummary(command: "find"))
        #expect(LineSummary("find John Smith") == LineSummary(command: "find"))
    }

    @Test func findByMRN_recordsTheMRN() {
        #expect(LineSummary("find 123456") == LineSummary(command: "find", mrn: "123456"))
    }

    @Test func show_recordsAKnownSectionOnly() {
        #expect(LineSummary("show meds") == LineSummary(command: "show", arguments: "meds"))
        #expect(LineSummary("show diabetes") == LineSummary(command: "show"))
    }

    @Test func unknownFirstWord_isNotRecorded() {
        // A password typed at the prompt by mistake, or a patient's name.
        #expect(LineSummary("hunter2") == LineSummary(command: "?"))
        #expect(LineSummary("Smith, John") == LineSummary(command: "?"))
    }

    @Test func blankLine_isNothingToRecord() {
        #expect(LineSummary("   ") == nil)
    }
}
