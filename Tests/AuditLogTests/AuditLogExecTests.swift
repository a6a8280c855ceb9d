import AuditLog
import SessionTestSupport
import Testing
import WardCore

/// What the audit log keeps of `ward exec`: the program's start and end, refused lines, and the
/// typed lines only where the site asks for them.
@Suite struct AuditLogExecTests {
    let directory = TempDirectory()
    var path: String { directory.file("audit.jsonl") }

    private func records() -> [AuditRecord] {
        lines(of: readBytes(path)).enumerated().compactMap { AuditRecord(line: $0 + 1, bytes: $1[...]) }
    }

    private func session(recordsInput: Bool, arguments: [String]?) -> InterceptorChain {
        let chain = InterceptorChain(clock: ManualClock(), session: SessionInfo(id: "s-1"))
        chain.append(AuditLog(path: path, clock: steppingClock()))
        let session = DriverSession(chain)
        session.info.user = "demo"
        session.info.role = .clinician
        _ = chain.send(.session(.signedOn(user: "demo", role: .clinician)))
        let start = ProgramStart(path: "/usr/bin/sqlite3", arguments: arguments, recordsInput: recordsInput)
        _ = chain.send(.session(.programStarted(start)))
        _ = chain.send(.line(Line("select name from patients; ", source: .program("sqlite3"))))
        let refused = Line("drop table patients;", source: .program("sqlite3"))
        _ = chain.send(.session(.denied(refused, message: "no DROP here", by: "sql-guard")))
        _ = chain.send(.session(.programExited(.killed(by: 1))))
        _ = chain.send(.session(.signedOff(.hangup)))
        chain.removeAll()
        return chain
    }

    @Test func byDefault_noTypedTextIsRecorded_andNoArguments() {
        _ = session(recordsInput: false, arguments: nil)
        let rs = records()
        #expect(rs.map { $0.kind ?? "" } == ["sign-on", "exec-start", "denied", "exec-exit", "sign-off"])
        #expect(rs[1].object.string("path") == "/usr/bin/sqlite3")
        #expect(rs[1].object.string("arguments") == nil)
        #expect(rs[2].object.string("command") == "?")
        #expect(rs[2].object.string("reason") == "no DROP here")
        #expect(rs[2].object.string("plugin") == "sql-guard")
        #expect(rs[2].object.string("source") == "exec:sqlite3")
        #expect(rs[3].object.integer("status") == 129)
        #expect(rs[3].object.integer("signal") == 1)
        #expect(!readText(path).contains("patients"))
        #expect(AuditVerifier().verify(bytes: readBytes(path), head: headState(path)).isIntact)
    }

    @Test func recordInput_recordsEachLineWhole_andRecordArgumentsTheArguments() {
        _ = session(recordsInput: true, arguments: ["-readonly", "extract one.db"])
        let rs = records()
        #expect(rs.map { $0.kind ?? "" } == ["sign-on", "exec-start", "input", "denied", "exec-exit", "sign-off"])
        #expect(rs[1].object.string("arguments") == "-readonly 'extract one.db'")
        #expect(rs[2].object.string("text") == "select name from patients; ")
        #expect(AuditVerifier().verify(bytes: readBytes(path), head: headState(path)).isIntact)
    }
}
