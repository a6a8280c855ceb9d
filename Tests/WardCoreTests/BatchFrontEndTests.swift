import Glibc
import Logging
import SessionTestSupport
import Testing

@testable import WardCore

/// A script's session: the real driver and batch front end, with a scripted shell, a recording
/// chain, a real credential store and signals of its own. The script is a pipe whose write end
/// is closed before the run, so nothing waits on time.
struct BatchFrontEndTests {
    final class Reports: BatchReporter {
        var finished: [(String, BatchStatus)] = []
        var notices: [String] = []
        func commandStarted(_ line: Line) {}
        func commandFinished(_ line: Line, status: BatchStatus) { finished.append((line.source.place, status)) }
        func notice(_ text: String) { notices.append(text) }
    }

    /// A closure kept by the fixture (`beforeRun`, the runner's `onRun`) takes it `unowned`:
    /// holding it would keep it, and its scratch home, past the test.
    final class Fixture {
        let scratch = ScratchHome()
        let credentials: CredentialStore
        let runner = ScriptedRunner()
        let reports = Reports()
        let recorder: RecordingInterceptor
        let chain: InterceptorChain
        let passwordFile: String
        let signals = TestSignals()
        /// Runs with the lines, before the first one is read: raise a signal here.
        var beforeRun: () -> Void = {}

        init(answer: @escaping (Event, PluginContext) -> Disposition = { _, _ in .pass }) throws {
            let home = try WardHome.open(option: scratch.path + "/ward")
            credentials = CredentialStore(home: home, parameters: .testing)
            try credentials.add(name: "alice", role: .clinician, password: Password("correct horse"))
            passwordFile = scratch.path + "/password"
            recorder = RecordingInterceptor("recorder", answer: answer)
            chain = InterceptorChain(clock: ManualClock(), session: SessionInfo(id: "test"))
            chain.append(recorder)
            try write("correct horse\n", to: passwordFile)
        }

        func write(_ text: String, to path: String, mode: mode_t = 0o600) throws {
            let fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, mode)
            var bytes = Array(text.utf8)
            _ = Glibc.write(fd, &bytes, bytes.count)
            fchmod(fd, mode)
            close(fd)
        }

        /// Runs `script` to its end; the exit status.
        func run(
            _ script: String,
            password: PasswordSource? = nil,
            onError: BatchFrontEnd.OnError = .stop
        ) throws -> WardCore.ExitStatus {
            let input = pipeHolding(script)
            defer { close(input) }
            let frontEnd = BatchFrontEnd(
                input: input,
                options: .init(
                    scriptName: "s.ward",
                    user: "alice",
                    password: password ?? .file(path: passwordFile),
                    onError: onError
                ),
                reporter: reports,
                stdout: nil
            )
            let session = SessionDriver(
                frontEnd: frontEnd,
                clock: ManualClock(),
                chain: chain,
                runner: runner,
                credentials: credentials,
                policy: SessionMachine.Policy(),
                logger: Logger(label: "test"),
                signals: signals.install
            )
            beforeRun()
            return try session.run()
        }

        var sessionEvents: [SessionEvent] {
            recorder.seen.compactMap { if case .session(let e) = $0, e != .promptReady { e } else { nil } }
        }
    }

    @Test func everyLine_passesTheChain_withItsBatchSource_thenRuns() throws {
        let f = try Fixture()
        #expect(try f.run("# comment\nfind ada\n\nopen W1\n") == .success)
        #expect(
            f.runner.ran == [
                Line("find ada", source: .batch(file: "s.ward", line: 2)),
                Line("open W1", source: .batch(file: "s.ward", line: 4)),
            ]
        )
        #expect(f.recorder.seen.contains(.line(Line("open W1", source: .batch(file: "s.ward", line: 4)))))
        #expect(f.sessionEvents == [.signedOn(user: "alice", role: .clinician), .signedOff(.endOfInput)])
    }

    @Test func wrongCredentials_exit77_beforeAnyLineRuns() throws {
        let f = try Fixture()
        try f.write("wrong\n", to: f.passwordFile)
        #expect(try f.run("find ada\n") == .authenticationFailed)
        #expect(f.runner.ran.isEmpty)
        #expect(f.sessionEvents == [.signOnFailed(user: "alice", reason: .wrongPassword)])
    }

    @Test func aPasswordFileOthersCanRead_isRefused_withTheReason() throws {
        let f = try Fixture()
        try f.write("correct horse\n", to: f.passwordFile, mode: 0o644)
        #expect(try f.run("find ada\n") == .configuration)
        #expect(f.runner.ran.isEmpty)
        #expect(f.reports.notices.contains { $0.contains("group or others can read it") && $0.contains("chmod 600") })
    }

    @Test func onErrorStop_endsAtTheFirstFailure_withStatus1() throws {
        let f = try Fixture()
        #expect(try f.run("find ada\nfail here\nopen W1\n") == .failure)
        #expect(f.runner.ran.map(\.text) == ["find ada", "fail here"])
        #expect(f.reports.finished.last! == ("s.ward:2", .failed))
        #expect(f.sessionEvents.last == .signedOff(.commandFailed))
    }

    @Test func onErrorContinue_runsEverything_andStillExits1() throws {
        let f = try Fixture()
        #expect(try f.run("fail one\nfind ada\nfail two\n", onError: .continue) == .failure)
        #expect(f.runner.ran.map(\.text) == ["fail one", "find ada", "fail two"])
        #expect(f.sessionEvents.last == .signedOff(.endOfInput))
    }

    @Test func aLineAPluginDenies_neverRuns_isAnnounced_andCountsAsAFailure() throws {
        let f = try Fixture { event, context in
            if case .line(let line) = event, line.text.hasPrefix("open") { return .deny("not now") }
            return .pass
        }
        #expect(try f.run("open W1\nfind ada\n", onError: .continue) == .failure)
        #expect(f.runner.ran.map(\.text) == ["find ada"])
        #expect(f.reports.finished.first! == ("s.ward:1", .denied("not now")))
        #expect(
            f.sessionEvents.contains(
                .denied(Line("open W1", source: .batch(file: "s.ward", line: 1)), message: "not now", by: "recorder")
            )
        )
    }

    @Test func afterALock_thePasswordFileIsReadAgain_beforeTheNextLineRuns() throws {
        let f = try Fixture()
        #expect(try f.run("open W1\nlock\nshow\n") == .success)
        #expect(f.runner.wipes == 1)
        #expect(f.runner.ran.map(\.text) == ["open W1", "lock", "show"])
        #expect(f.runner.signOns == ["alice", "alice"])
        #expect(
            f.sessionEvents == [
                .signedOn(user: "alice", role: .clinician), .locked(.user), .unlocked(user: "alice"),
                .signedOff(.endOfInput),
            ]
        )
    }

    @Test func afterALock_aPasswordFileThatNoLongerSignsOn_stopsWith77_beforeTheNextLine() throws {
        let f = try Fixture()
        f.runner.onRun = { [unowned f] line in
            if line.text == "lock" { try? f.write("changed\n", to: f.passwordFile) }
        }
        #expect(try f.run("open W1\nlock\nshow\n") == .authenticationFailed)
        #expect(f.runner.ran.map(\.text) == ["open W1", "lock"])
        #expect(
            f.reports.notices.contains { $0.contains("no longer signs on alice") && $0.contains("before s.ward:3") }
        )
    }

    @Test func afterALock_aPasswordFromADescriptor_endsWith75_namingTheLine() throws {
        let f = try Fixture()
        let password = pipeHolding("correct horse\n")
        #expect(try f.run("open W1\nlock\nshow\n", password: .descriptor(password)) == .lockedOut)
        #expect(f.runner.ran.map(\.text) == ["open W1", "lock"])
        #expect(f.runner.wipes == 1)
        #expect(
            f.reports.notices.contains {
                $0.contains("descriptor \(password)") && $0.contains("stopped after s.ward:2")
            }
        )
        #expect(f.sessionEvents.last == .signedOff(.timeout))
    }

    @Test func aCommandThatAsks_isAnsweredWithNothing_andFails() throws {
        let f = try Fixture()
        #expect(try f.run("ask\nfind ada\n") == .failure)
        #expect(f.runner.answers == [nil])
        #expect(f.runner.ran.map(\.text) == ["ask"])
        #expect(f.reports.finished.first! == ("s.ward:1", .failed))
    }

    @Test func aSafeguardThatLocksAgainAtSignOn_failsEachLine_insteadOfSkippingIt() throws {
        let f = try Fixture { event, context in
            if event == .session(.unlocked(user: "alice")) { context.lock(reason: .failure) }
            return .pass
        }
        #expect(try f.run("lock\nshow\nfind ada\n", onError: .continue) == .failure)
        #expect(f.runner.ran.map(\.text) == ["lock"])
        #expect(
            f.reports.finished.map(\.0) == ["s.ward:1", "s.ward:2", "s.ward:3"]
                && f.reports.finished.dropFirst().allSatisfy {
                    $0.1 == .denied("not run: the session locked again as it signed on.")
                }
        )
    }

    @Test func logout_endsTheBatch_withoutReadingFurther() throws {
        let f = try Fixture()
        #expect(try f.run("find ada\nlogout\nopen W1\n") == .success)
        #expect(f.runner.ran.map(\.text) == ["find ada", "logout"])
        #expect(f.sessionEvents.last == .signedOff(.user))
    }

    @Test func aPluginsLockRequest_wipes_andTheNextLineSignsOnAgain() throws {
        let f = try Fixture { event, context in
            if case .line(let line) = event, line.text == "find ada" { context.lock(reason: .idle) }
            return .pass
        }
        #expect(try f.run("find ada\nopen W1\n") == .success)
        #expect(f.runner.wipes == 1)
        #expect(f.runner.ran.map(\.text) == ["find ada", "open W1"])
        #expect(f.reports.notices.contains { $0.contains("locked (idle) after s.ward:1") })
    }

    @Test func sigHUP_passesTheChainAsHangup_saysWhere_andSignsOffWith129() throws {
        let f = try Fixture()
        f.beforeRun = { [unowned f] in f.signals.raise(.sighup) }
        #expect(try f.run("find ada\n") == .killed(by: SIGHUP))
        #expect(f.runner.ran.isEmpty)
        #expect(f.recorder.seen.contains(.lifecycle(.hangup)))
        #expect(f.sessionEvents.last == .signedOff(.hangup))
        #expect(f.reports.notices.last == "SIGHUP: stopped before the first line.")
    }

    @Test func sigTERM_passesTheChainAsTerminate_andSignsOffWith143() throws {
        let f = try Fixture()
        f.runner.onRun = { [unowned f] _ in f.signals.raise(.sigterm) }
        #expect(try f.run("find ada\nopen W1\n") == .killed(by: SIGTERM))
        #expect(f.runner.ran.map(\.text) == ["find ada"])
        let i = try #require(f.recorder.seen.firstIndex(of: .lifecycle(.terminate)))
        #expect(f.recorder.seen[(i + 1)...].contains(.session(.signedOff(.terminate))))
        #expect(f.reports.notices.last == "SIGTERM: stopped after s.ward:1.")
    }
}
