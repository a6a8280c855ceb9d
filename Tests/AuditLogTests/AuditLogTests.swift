import AuditLog
import Glibc
import SessionTestSupport
import Testing
import WardCore

/// A link after the audit log that notes which lines reached it.
private final class LineRecorder: Plugin {
    static let name = "recorder"
    static let summary = "Notes which lines reached it."
    var lines: [String] = []
    init() {}
    init(settings: PluginSettings, environment: PluginEnvironment) {}
    func intercept(_ event: Event, context: PluginContext) -> Disposition {
        if case .line(let line) = event { lines.append(line.text) }
        return .pass
    }
}

/// The interceptor, driven through a real `InterceptorChain`.
@Suite struct AuditLogTests {
    let directory = TempDirectory()
    var path: String { directory.file("audit.jsonl") }
    /// What the shell tells the plugins (`PluginEnvironment.commandNames`).
    let shellCommands: Set<String> = ["find", "open", "show", "note", "close", "charts", "lock", "logout", "exit"]

    private func makeChain(
        policy: AuditWriter.SyncPolicy = .always
    ) throws -> (
        InterceptorChain, ManualClock, LineRecorder
    ) {
        let clock = ManualClock()
        let chain = InterceptorChain(clock: clock, session: SessionInfo(id: "s-1"))
        chain.append(AuditLog(path: path, policy: policy, commandNames: shellCommands, clock: steppingClock()))
        let recorder = LineRecorder()
        chain.append(recorder)
        return (chain, clock, recorder)
    }

    private func records() -> [AuditRecord] {
        lines(of: readBytes(path)).enumerated().compactMap { AuditRecord(line: $0 + 1, bytes: $1[...]) }
    }

    @Test func recordsASessionsEvents_inOrder_withTheirDetails() throws {
        let (chain, _, recorder) = try makeChain()
        let session = DriverSession(chain)
        session.info.user = "demo"
        session.info.role = .clinician
        _ = chain.send(.session(.signedOn(user: "demo", role: .clinician)))
        _ = chain.send(.key(KeyPress(Array("x".utf8))))
        #expect(chain.send(.line(Line("open MRN-1042"))).outcome == .delivered(.line(Line("open MRN-1042"))))
        _ = chain.send(.session(.accessed(RecordAccess(.opened, record: "MRN-1042", outcome: .ok))))
        _ = chain.send(.line(Line("note Patient reports chest pain")))
        _ = chain.send(.session(.accessed(RecordAccess(.wrote, record: "MRN-1042", outcome: .ok))))
        _ = chain.send(.line(Line("show meds", source: .batch(file: "rounds.ward", line: 3))))
        _ = chain.send(
            .session(.accessed(RecordAccess(.read, record: "MRN-1042", detail: "meds", outcome: .ok)))
        )
        _ = chain.send(.session(.locked(.idle)))
        _ = chain.send(.lifecycle(.suspend))
        _ = chain.send(.lifecycle(.resume(away: .milliseconds(90_500))))
        _ = chain.send(.session(.unlocked(user: "demo")))
        _ = chain.send(.lifecycle(.hangup))
        _ = chain.send(.session(.signedOff(.hangup)))
        chain.removeAll()

        let rs = records()
        #expect(
            rs.map { $0.kind ?? "" } == [
                "sign-on", "command", "access", "command", "access", "command", "access", "lock", "suspend", "resume",
                "unlock", "signal", "sign-off",
            ]
        )
        #expect(rs.map(\.seq) == Array(1...13))
        // The line's record is its command's name only; what it did comes from the access record.
        #expect(rs[1].object.fields.map(\.key).filter { !envelope.contains($0) } == ["command"])
        #expect(rs[1].object.string("command") == "open")
        #expect(fields(rs[2]) == ["action": "open", "mrn": "MRN-1042", "outcome": "ok"])
        #expect(rs[3].object.string("command") == "note" && rs[3].object.string("mrn") == nil)
        #expect(fields(rs[4]) == ["action": "write", "mrn": "MRN-1042", "outcome": "ok"])
        #expect(rs[5].object.string("command") == "show" && rs[5].object.string("args") == nil)
        #expect(fields(rs[6]) == ["action": "read", "mrn": "MRN-1042", "section": "meds", "outcome": "ok"])
        #expect(rs[5].object.string("source") == "batch:rounds.ward:3")
        #expect(rs[6].object.string("source") == "batch:rounds.ward:3", "an access comes from its line's source")
        #expect(rs[1].object.string("source") == "tty")
        #expect(rs[7].object.string("cause") == "idle")
        #expect(rs[9].object.integer("away_ms") == 90_500)
        #expect(rs[11].object.string("signal") == "SIGHUP")
        #expect(rs[12].object.string("how") == "hangup")
        for r in rs {
            #expect(r.user == "demo")
            #expect(r.object.string("role") == "clinician")
            #expect(r.object.string("session") == "s-1")
            #expect(r.object.integer("pid") == Int64(getpid()))
            #expect(r.object.string("host")?.isEmpty == false)
            #expect(r.object.integer("ver") == AuditRecord.version, "each record says which format it is")
        }
        #expect(!readText(path).contains("chest pain"))
        #expect(recorder.lines.count == 3)
        #expect(AuditVerifier().verify(bytes: readBytes(path), head: headState(path)).isIntact)
    }

    /// The envelope's keys, which every record has.
    private let envelope: Set<String> = [
        "seq", "ver", "ts", "host", "pid", "session", "user", "role", "source", "kind", "prev", "hash",
    ]

    /// A record's own string fields, without the envelope.
    private func fields(_ record: AuditRecord) -> [String: String] {
        var out: [String: String] = [:]
        for (key, value) in record.object.fields where !envelope.contains(key) {
            if case .string(let text) = value { out[key] = text }
        }
        return out
    }

    @Test func aDeniedLine_recordsThePluginThatSaidNo_andNoneWhenWardItselfRefused() throws {
        let (chain, _, _) = try makeChain()
        _ = chain.send(.line(Line("open MRN-1")))
        _ = chain.send(.session(.denied(Line("open MRN-1"), message: "closed at night", by: "working-hours")))
        _ = chain.send(.session(.denied(Line("note x"), message: "too long", by: nil)))
        chain.removeAll()
        let rs = records()
        #expect(rs.map { $0.kind ?? "" } == ["command", "denied", "denied"])
        #expect(fields(rs[1]) == ["command": "open", "reason": "closed at night", "plugin": "working-hours"])
        #expect(fields(rs[2]) == ["command": "note", "reason": "too long"])
        #expect(
            columns(tableText(rs)).contains {
                $0.hasSuffix("denied open reason=\"closed at night\" plugin=working-hours")
            }
        )
        #expect(AuditVerifier().verify(bytes: readBytes(path), head: headState(path)).isIntact)
    }

    @Test func anMRNOfAnyLengthAndForm_isRecordedExactly() throws {
        let (chain, _, _) = try makeChain()
        let uuid = "8f3e2a10-5c4b-4d1e-9a7f-2b6c0d9e1f35"
        let long = String(repeating: "Z", count: 200) + "/ü\"\u{1B}]0;x\u{07}"
        _ = chain.send(.line(Line("open \(uuid)")))
        _ = chain.send(.session(.accessed(RecordAccess(.opened, record: uuid, outcome: .ok))))
        _ = chain.send(.session(.accessed(RecordAccess(.closed, record: long, outcome: .failed))))
        chain.removeAll()
        let rs = records()
        #expect(rs.map { $0.kind ?? "" } == ["command", "access", "access"])
        #expect(rs[0].object.string("mrn") == nil, "the line is never parsed for an MRN")
        #expect(rs[1].object.string("mrn") == uuid)
        #expect(rs[2].object.string("mrn") == long && rs[2].object.string("outcome") == "failed")
        #expect(AuditFilter(mrn: uuid).matches(rs[1]) && !AuditFilter(mrn: uuid).matches(rs[0]))
        #expect(AuditFilter(mrn: long).matches(rs[2]) && !AuditFilter(mrn: long).matches(rs[1]))
        let table = tableText(rs)
        #expect(columns(table).contains { $0.hasSuffix("access ok action=open mrn=\(uuid)") })
        #expect(!table.contains("\u{1B}") && table.contains("\\e]0;x\\a"))
        #expect(AuditVerifier().verify(bytes: readBytes(path), head: headState(path)).isIntact)
    }

    @Test func aDeniedRead_isRecordedWithItsSection_andADeniedOrFailedOpenSo() throws {
        let (chain, _, _) = try makeChain()
        _ = chain.send(.line(Line("show labs")))
        _ = chain.send(.session(.accessed(RecordAccess(.read, record: "W1", detail: "labs", outcome: .denied))))
        _ = chain.send(.line(Line("open W9")))
        _ = chain.send(.session(.accessed(RecordAccess(.opened, record: "W9", outcome: .failed))))
        chain.removeAll()
        let rs = records()
        #expect(fields(rs[1]) == ["action": "read", "mrn": "W1", "section": "labs", "outcome": "denied"])
        #expect(fields(rs[3]) == ["action": "open", "mrn": "W9", "outcome": "failed"])
    }

    @Test func breakingTheGlass_isItsOwnKind_withTheReasonAndTheOutcome() throws {
        let (chain, _, _) = try makeChain()
        let access = RecordAccess(.brokeGlass, record: "R1", detail: "on call, chest pain", outcome: .ok)
        _ = chain.send(.session(.accessed(access)))
        let r = try #require(records().first)
        #expect(r.kind == "break-glass")
        #expect(fields(r) == ["mrn": "R1", "reason": "on call, chest pain", "outcome": "ok"])
    }

    @Test func unwritableLog_afterAnAccessThatShowedARecord_locks_butAfterARefusalIsANotice() throws {
        let (chain, _, _) = try makeChain()
        _ = chain.send(.line(Line("charts")))
        #expect(chmod(path, 0o400) == 0)
        let refused = chain.send(
            .session(.accessed(RecordAccess(.read, record: "W1", detail: "labs", outcome: .denied)))
        ).requests
        #expect(refused.count == 1)
        if case .notice = refused.first {} else { Issue.record("expected a notice, got \(refused)") }
        let opened = chain.send(.session(.accessed(RecordAccess(.opened, record: "W1", outcome: .ok))))
        #expect(opened.requests == [.lock(.failure)])
    }

    /// The table's lines with each run of spaces as one: columns compare without their widths.
    private func columns(_ table: String) -> [String] {
        table.split(separator: "\n").map { $0.split(separator: " ").joined(separator: " ") }
    }

    @Test func failedSignOn_recordsTheNameOfAUserWhoExists_andWhy() throws {
        let (chain, _, _) = try makeChain()
        _ = chain.send(.session(.signOnFailed(user: "mallory", reason: .wrongPassword)))
        let r = try #require(records().first)
        #expect(r.kind == "sign-on-failed")
        #expect(r.user == "mallory")
        #expect(r.object["role"] == .null)
        #expect(r.object.string("reason") == "wrong-password")
    }

    @Test func failedSignOn_ofANameNobodyHas_recordsThatTheUserWasUnknown_notTheText() throws {
        let (chain, _, _) = try makeChain()
        let session = DriverSession(chain)
        session.info.signOnSource = .terminal(tty: "/dev/pts/7")
        _ = chain.send(.session(.signOnFailed(user: nil, reason: .unknownUser)))
        let r = try #require(records().first)
        #expect(r.object["user"] == .null)
        #expect(
            r.object.fields.map(\.key).filter { !envelope.contains($0) } == ["reason", "via", "tty"]
        )
        #expect(fields(r) == ["reason": "unknown-user", "via": "terminal", "tty": "/dev/pts/7"])
        #expect(r.outcome == .denied)
    }

    @Test(arguments: [
        (SignOnSource.terminal(tty: "/dev/pts/3"), #""via":"terminal","tty":"/dev/pts/3","#),
        (SignOnSource.terminal(tty: nil), #""via":"terminal","tty":null,"#),
        (
            SignOnSource.ssh(peer: "203.0.113.9", port: 50122, tty: "/dev/pts/4"),
            #""via":"ssh","peer":"203.0.113.9","port":50122,"tty":"/dev/pts/4","#
        ),
        (SignOnSource.batch(script: "rounds.ward"), #""via":"batch","script":"rounds.ward","#),
        (SignOnSource.batch(script: "-"), #""via":"batch","script":"-","#),
    ])
    func signOn_recordsWhereItCameFrom(source: SignOnSource, written: String) throws {
        let (chain, _, _) = try makeChain()
        let session = DriverSession(chain)
        session.info.signOnSource = source
        session.info.user = "demo"
        session.info.role = .clinician
        _ = chain.send(.session(.signedOn(user: "demo", role: .clinician)))
        chain.removeAll()
        let text = readText(path)
        #expect(text.contains(#""kind":"sign-on","# + written + #""prev":"#))
    }

    @Test(arguments: [SignOnFailure.wrongPassword, .accountLocked])
    func aRefusedUnlock_isRecordedForTheSessionsUser_withWhy(reason: SignOnFailure) throws {
        let (chain, _, _) = try makeChain()
        let session = DriverSession(chain)
        session.info.user = "demo"
        session.info.role = .clinician
        _ = chain.send(.session(.unlockFailed(user: "demo", reason: reason)))
        let r = try #require(records().first)
        #expect(r.kind == "unlock-failed" && r.user == "demo")
        #expect(fields(r) == ["reason": reason.rawValue])
    }

    @Test func theCommandNamesItIsTold_areTheOnlyOnesItKeeps() throws {
        let log = try AuditLog(
            settings: .defaults(for: AuditLog.name),
            environment: PluginEnvironment(home: directory.path, commandNames: ["open"])
        )
        #expect(log.commandNames == ["open"])
        let chain = InterceptorChain(clock: ManualClock(), session: SessionInfo(id: "s-1"))
        chain.append(log)
        _ = chain.send(.line(Line("open W1")))
        _ = chain.send(.line(Line("find Smith")))
        chain.removeAll()
        let written = lines(of: readBytes(log.path)).enumerated().compactMap {
            AuditRecord(line: $0 + 1, bytes: $1[...])
        }
        #expect(written.map { $0.object.string("command") } == ["open", "?"])
    }

    @Test func keysAndFocus_areNeverRecorded() throws {
        let (chain, _, _) = try makeChain()
        _ = chain.send(.key(KeyPress(Array("secret".utf8))))
        _ = chain.send(.key(.redacted))
        _ = chain.send(.focus(.lost))
        #expect(readBytes(path).isEmpty)
    }

    @Test func unwritableLog_deniesTheLine_andLocks() throws {
        let (chain, _, recorder) = try makeChain()
        _ = chain.send(.line(Line("charts")))
        #expect(chmod(path, 0o400) == 0)
        let sent = chain.send(.line(Line("open MRN-1042")))
        guard case .denied(let message, _) = sent.outcome else {
            Issue.record("expected a denial, got \(sent.outcome)")
            return
        }
        #expect(message.contains("audit log"))
        #expect(message.contains("read-only"))
        #expect(sent.requests == [.lock(.failure)])
        #expect(recorder.lines == ["charts"])
    }

    @Test func logReplacedBySymlink_deniesTheLine_andLocks() throws {
        let (chain, _, recorder) = try makeChain()
        _ = chain.send(.line(Line("charts")))
        #expect(rename(path, directory.file("moved.jsonl")) == 0)
        #expect(symlink(directory.file("moved.jsonl"), path) == 0)
        let sent = chain.send(.line(Line("open MRN-1042")))
        guard case .denied = sent.outcome else {
            Issue.record("expected a denial")
            return
        }
        #expect(sent.requests == [.lock(.failure)])
        #expect(recorder.lines == ["charts"])
    }

    @Test func logThatCannotBeOpened_failsClosedAtSignOn() throws {
        let chain = InterceptorChain(
            clock: ManualClock(),
            session: SessionInfo(id: "s-1", user: "demo", role: .clinician)
        )
        chain.append(AuditLog(path: directory.file("missing/audit.jsonl")))
        #expect(chain.send(.session(.signedOn(user: "demo", role: .clinician))).requests == [.lock(.failure)])
        guard case .denied(let message, _) = chain.send(.line(Line("open MRN-1"))).outcome else {
            Issue.record("expected a denial")
            return
        }
        #expect(message.contains("missing/audit.jsonl"))
    }

    @Test func unwritableLog_onUnlock_locksAgain() throws {
        let (chain, _, _) = try makeChain()
        _ = chain.send(.line(Line("charts")))
        #expect(chmod(path, 0o400) == 0)
        #expect(chain.send(.session(.unlocked(user: "demo"))).requests == [.lock(.failure)])
    }

    @Test func unwritableLog_onLock_isANoticeOnly() throws {
        let (chain, _, _) = try makeChain()
        _ = chain.send(.line(Line("charts")))
        #expect(chmod(path, 0o400) == 0)
        let requests = chain.send(.session(.locked(.idle))).requests
        #expect(requests.count == 1)
        if case .notice(let text) = requests.first {
            #expect(text.contains("audit log"))
        } else {
            Issue.record("expected a notice, got \(requests)")
        }
    }

    @Test func intervalPolicy_syncsOnItsDeadline() throws {
        let (chain, clock, _) = try makeChain(policy: .interval)
        _ = chain.send(.line(Line("charts")))
        #expect(chain.nextDeadline == clock.now + .seconds(1))
        clock.advance(by: .seconds(1))
        #expect(chain.fireDueTimers().isEmpty)
        #expect(chain.nextDeadline == nil)
    }
}

/// The factory: settings, defaults, and what it refuses.
@Suite struct AuditLogFactoryTests {
    let directory = TempDirectory()

    private func settings(_ values: [String: PluginSettings.Value]) -> PluginSettings {
        var lines: [String: (value: PluginSettings.Value, line: Int)] = [:]
        for (i, (k, v)) in values.enumerated() { lines[k] = (v, 10 + i) }
        return PluginSettings(name: AuditLog.name, file: "site.toml", line: 9, values: lines)
    }

    @Test func defaults_writeToTheHome_syncingAlways() throws {
        let log = try AuditLog(
            settings: .defaults(for: AuditLog.name),
            environment: PluginEnvironment(home: directory.path)
        )
        #expect(log.name == "audit-log")
        #expect(log.path == directory.file("audit.jsonl"))
        #expect(log.policy == .always)
        #expect(!log.chain.isKeyed)
        // Building the plugin (as `ward config check` does) creates nothing.
        #expect(access(log.path, F_OK) != 0)
    }

    @Test func readsPathFsyncAndKey() throws {
        let keyPath = directory.file("key")
        writeBytes(keyPath, Array("0123456789abcdef0123456789abcdef\n".utf8))
        let log = try AuditLog(
            settings: settings([
                "path": .string(directory.file("x.jsonl")), "fsync": .string("interval"),
                "key-file": .string(keyPath), "fsync-interval": .string("250ms"),
            ]),
            environment: PluginEnvironment(home: "/nonexistent")
        )
        #expect(log.path == directory.file("x.jsonl"))
        #expect(log.policy == .interval)
        #expect(log.chain.isKeyed)
        #expect(log.syncInterval == .milliseconds(250))
    }

    @Test func unknownFsyncPolicy_isAConfigError() {
        #expect(throws: ConfigError.self) {
            try AuditLog(
                settings: settings(["fsync": .string("sometimes")]),
                environment: PluginEnvironment(home: directory.path)
            )
        }
    }

    @Test func relativePath_isRefused() {
        #expect(throws: ConfigError.self) {
            try AuditLog(
                settings: settings(["path": .string("audit.jsonl")]),
                environment: PluginEnvironment(home: directory.path)
            )
        }
    }

    @Test func keyFileOthersCanRead_isRefused() throws {
        let keyPath = directory.file("key")
        writeBytes(keyPath, Array("0123456789abcdef0123456789abcdef".utf8))
        #expect(chmod(keyPath, 0o644) == 0)
        let error = #expect(throws: AuditError.self) {
            try AuditLog(
                settings: settings(["key-file": .string(keyPath)]),
                environment: PluginEnvironment(home: directory.path)
            )
        }
        guard case .keyFile(.unsafeMode) = error else {
            Issue.record("expected unsafeMode, got \(String(describing: error))")
            return
        }
        #expect(error?.description.contains("chmod 600") == true)
    }

    @Test(.enabled(if: isRoot, "needs root to give the file away"))
    func keyFileOfAnotherUser_isRefused() throws {
        let keyPath = directory.file("key")
        writeBytes(keyPath, Array("0123456789abcdef0123456789abcdef".utf8))
        #expect(chown(keyPath, 65534, 65534) == 0)
        let error = #expect(throws: AuditError.self) {
            try AuditLog(
                settings: settings(["key-file": .string(keyPath)]),
                environment: PluginEnvironment(home: directory.path)
            )
        }
        guard case .keyFile(.wrongOwner) = error else {
            Issue.record("expected wrongOwner, got \(String(describing: error))")
            return
        }
    }

    @Test func shortKey_isRefused() throws {
        let keyPath = directory.file("key")
        writeBytes(keyPath, Array("short\n".utf8))
        #expect(throws: AuditError.weakKey(path: keyPath, bytes: 5)) {
            try AuditLog(
                settings: settings(["key-file": .string(keyPath)]),
                environment: PluginEnvironment(home: directory.path)
            )
        }
    }
}

/// A command cut short by SIGTERM says so, after its own record and before the signal's.
@Suite struct AbandonedCommandAuditTests {
    let directory = TempDirectory()

    @Test func anAbandonedCommand_isRecorded_withItsCommandAndTheSignal_neverItsText() throws {
        let path = directory.file("audit.jsonl")
        let chain = InterceptorChain(clock: ManualClock(), session: SessionInfo(id: "s-1"))
        chain.append(AuditLog(path: path, commandNames: ["note"], clock: steppingClock()))
        let line = Line("note Patient reports chest pain", source: .batch(file: "rounds.ward", line: 4))
        _ = chain.send(.line(line))
        _ = chain.send(.session(.abandoned(line, because: .terminate)))
        _ = chain.send(.lifecycle(.terminate))
        _ = chain.send(.session(.signedOff(.terminate)))
        chain.removeAll()
        let rs = lines(of: readBytes(path)).enumerated().compactMap { AuditRecord(line: $0 + 1, bytes: $1[...]) }
        #expect(rs.map { $0.kind ?? "" } == ["command", "abandoned", "signal", "sign-off"])
        #expect(rs[1].object.string("command") == "note")
        #expect(rs[1].object.string("mrn") == nil && rs[1].object.string("chart") == nil, "never parsed from the line")
        #expect(rs[1].object.string("signal") == "SIGTERM")
        #expect(rs[1].object.string("source") == "batch:rounds.ward:4")
        #expect(!readText(path).contains("chest pain"))
        #expect(AuditVerifier().verify(bytes: readBytes(path), head: headState(path)).isIntact)
    }
}
