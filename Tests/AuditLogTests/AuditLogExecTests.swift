import AuditLog
import SessionTestSupport
import Testing
import WardCore

/// What the audit log keeps of `ward exec`: the program's start (its arguments and sandbox) and
/// end, refused lines and refused execs, and the typed lines only where the site asks for them.
@Suite struct AuditLogExecTests {
    let directory = TempDirectory()
    var path: String { directory.file("audit.jsonl") }

    private func records() -> [AuditRecord] {
        lines(of: readBytes(path)).enumerated().compactMap { AuditRecord(line: $0 + 1, bytes: $1[...]) }
    }

    private func session(
        recordsInput: Bool,
        arguments: [String]?,
        sandbox: ProgramSandbox? = nil
    ) -> InterceptorChain {
        let chain = InterceptorChain(clock: ManualClock(), session: SessionInfo(id: "s-1"))
        chain.append(AuditLog(path: path, clock: steppingClock()))
        let session = DriverSession(chain)
        session.info.user = "demo"
        session.info.role = .clinician
        _ = chain.send(.session(.signedOn(user: "demo", role: .clinician)))
        let start = ProgramStart(
            path: "/usr/bin/sqlite3",
            arguments: arguments,
            recordsInput: recordsInput,
            sandbox: sandbox
        )
        _ = chain.send(.session(.programStarted(start)))
        _ = chain.send(.line(Line("select name from patients; ", source: .program("sqlite3"))))
        let refused = Line("drop table patients;", source: .program("sqlite3"))
        _ = chain.send(.session(.denied(refused, message: "no DROP here", by: "sql-guard")))
        let shell = ProgramExecAttempt(path: "/bin/sh", process: 4242, reason: "not in may-run")
        _ = chain.send(.session(.programExecDenied(shell)))
        _ = chain.send(.session(.programExited(.killed(by: 1))))
        _ = chain.send(.session(.signedOff(.hangup)))
        chain.removeAll()
        return chain
    }

    @Test func byDefault_noTypedTextIsRecorded_butTheArguments_theSandbox_andEachRefusedExecAre() {
        let sandbox = ProgramSandbox(
            landlockABI: 7,
            seccomp: true,
            read: ["/srv/x y"],
            write: [],
            mayRun: ["/usr/bin/less"]
        )
        _ = session(recordsInput: false, arguments: ["-safe", "extract.db"], sandbox: sandbox)
        let rs = records()
        #expect(
            rs.map { $0.kind ?? "" } == ["sign-on", "exec-start", "denied", "exec-denied", "exec-exit", "sign-off"]
        )
        #expect(rs[1].object.string("path") == "/usr/bin/sqlite3")
        #expect(rs[1].object.string("arguments") == "-safe extract.db")
        #expect(rs[1].object.string("sandbox") == "landlock 7, seccomp")
        #expect(rs[1].object.string("read") == "'/srv/x y'")
        #expect(rs[1].object.string("write") == "")
        #expect(rs[1].object.string("may-run") == "/usr/bin/less")
        #expect(rs[3].object.string("path") == "/bin/sh")
        #expect(rs[3].object.integer("process") == 4242)
        #expect(rs[3].object.string("reason") == "not in may-run")
        #expect(rs[2].object.string("command") == "?")
        #expect(rs[2].object.string("reason") == "no DROP here")
        #expect(rs[2].object.string("plugin") == "sql-guard")
        #expect(rs[2].object.string("source") == "exec:sqlite3")
        #expect(rs[4].object.integer("status") == 129)
        #expect(rs[4].object.integer("signal") == 1)
        #expect(!readText(path).contains("patients"))
        #expect(AuditVerifier().verify(bytes: readBytes(path), head: headState(path)).isIntact)
    }

    @Test func recordInput_recordsEachLineWhole_andASandboxTurnedOffSaysSo() {
        _ = session(recordsInput: true, arguments: ["-readonly", "extract one.db"])
        let rs = records()
        #expect(
            rs.map { $0.kind ?? "" } == [
                "sign-on", "exec-start", "input", "denied", "exec-denied", "exec-exit", "sign-off",
            ]
        )
        #expect(rs[1].object.string("arguments") == "-readonly 'extract one.db'")
        #expect(rs[1].object.string("sandbox") == "off")
        #expect(rs[2].object.string("text") == "select name from patients; ")
        #expect(AuditVerifier().verify(bytes: readBytes(path), head: headState(path)).isIntact)
    }
}
