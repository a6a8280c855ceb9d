import Glibc
import RsyslogTestSupport
import SessionTestSupport
import Testing
import WardCore

@testable import AuditLog

/// The RFC 5424 message for a record, byte for byte: no daemon needed, the writer's stepping
/// clock sets the time.
@Suite struct SyslogMessageTests {
    let directory = TempDirectory()

    /// Writes `entries` and returns each written line.
    private func written(_ entries: [AuditEntry]) throws -> [AuditWriter.Written] {
        let writer = try AuditWriter(path: directory.file("audit.jsonl"), policy: .never, clock: steppingClock())
        return try entries.map { try writer.append($0, session: testSession, source: "tty") }
    }

    @Test func message_isTheRecordsLine_behindAnRFC5424Header_withItsSeqAndHash() throws {
        let access = AuditEntry.access(
            RecordAccess(.opened, record: "8f3e2a10-5c4b-4d1e-9a7f-2b6c0d9e1f35", outcome: .ok)
        )
        let line = try #require(written([access]).first).line
        let record = try #require(AuditRecord(line: 1, bytes: line))
        let host = try #require(record.object.string("host"))
        let message = try #require(SyslogForwarder.message(line: line))
        let header =
            "<86>1 2026-11-22T00:00:00.001Z \(host) ward \(getpid()) access "
            + "[ward@32473 seq=\"1\" hash=\"\(record.hash)\"] "
        #expect(message == Array(header.utf8) + Array(line))
        // No BOM: MSG is the line exactly as in the file.
        #expect(Array(message.suffix(line.count)) == Array(line))
        #expect(line.first == UInt8(ascii: "{") && line.last == UInt8(ascii: "}"))
    }

    @Test func severity_warnsOfRefusals_noticesWhatAnAuditorReadsFirst_elseInfo() throws {
        let entries: [AuditEntry] = [
            .signOn(),
            .signOnFailed(user: "mallory", reason: .wrongPassword),
            .access(RecordAccess(.read, record: "W1", detail: "labs", outcome: .denied)),
            .access(RecordAccess(.opened, record: "W9", outcome: .failed)),
            .access(RecordAccess(.brokeGlass, record: "R1", detail: "on call", outcome: .ok)),
            .access(RecordAccess(.brokeGlass, record: "R1", detail: "on call", outcome: .denied)),
            .lock(cause: "idle"),
            .lock(cause: "failure"),
            .signal("SIGHUP"),
            .signOff(how: "user"),
        ]
        let priorities = try written(entries).map { written in
            let message = try #require(SyslogForwarder.message(line: written.line))
            return String(decoding: message.prefix { $0 != UInt8(ascii: ">") }.dropFirst(), as: UTF8.self)
        }
        // authpriv (10) * 8 + severity: 6 info, 5 notice, 4 warning.
        #expect(priorities == ["86", "84", "84", "85", "85", "84", "86", "85", "85", "86"])
    }

    @Test func headerFields_arePrintableASCII_andParameterValuesEscaped() {
        #expect(SyslogForwarder.headerField("ward 1\u{e9}", limit: 32) == Array("ward_1__".utf8))
        #expect(SyslogForwarder.headerField("", limit: 32) == Array("-".utf8))
        #expect(SyslogForwarder.headerField(String(repeating: "k", count: 40), limit: 32).count == 32)
        #expect(SyslogForwarder.parameterValue(#"a"b\c]d"#) == #"a\"b\\c\]d"#)
    }

    @Test func aLineThatIsNotARecord_isNotSent() {
        #expect(SyslogForwarder.message(line: Array("{\"seq\":1}".utf8)[...]) == nil)
        #expect(throws: SyslogForwarder.Failure.notARecord) {
            try SyslogForwarder(socketPath: directory.file("log")).send(line: Array("x".utf8)[...])
        }
    }
}

/// The `forward`, `syslog-socket` and `on-forward-failure` keys.
@Suite struct SyslogForwardingSettingsTests {
    let directory = TempDirectory()

    private func plugin(_ values: [String: PluginSettings.Value]) throws -> AuditLog {
        var lines: [String: (value: PluginSettings.Value, line: Int)] = [:]
        for (i, (k, v)) in values.sorted(by: { $0.key < $1.key }).enumerated() { lines[k] = (v, 10 + i) }
        let settings = PluginSettings(name: AuditLog.name, file: "site.toml", line: 9, values: lines)
        let log = try AuditLog(settings: settings, environment: PluginEnvironment(home: directory.path))
        #expect(settings.unreadKeys.isEmpty)
        return log
    }

    @Test func noForwardByDefault() throws {
        let log = try plugin([:])
        #expect(log.forwarder == nil)
    }

    @Test func forwardSyslog_defaultsToDevLog_andLocking() throws {
        let log = try plugin(["forward": .string("syslog")])
        #expect(log.forwarder?.socketPath == "/dev/log")
        #expect(log.onForwardFailure == .lock)
        // Building the plugin (as `ward config check` does) connects nothing.
        let warned = try plugin([
            "forward": .string("syslog"), "syslog-socket": .string("/run/ward/log"),
            "on-forward-failure": .string("warn"),
        ])
        #expect(warned.forwarder?.socketPath == "/run/ward/log")
        #expect(warned.onForwardFailure == .warn)
    }

    @Test func badValues_areConfigErrors_namingTheLine() {
        // Keys sorted: forward is line 10, on-forward-failure 11, syslog-socket 11 or 12.
        #expect(
            throws: ConfigError.outOfRange(
                file: "site.toml",
                line: 10,
                key: "forward",
                value: "\"udp\"",
                allowed: "\"off\", \"syslog\""
            )
        ) {
            try plugin(["forward": .string("udp")])
        }
        #expect(
            throws: ConfigError.outOfRange(
                file: "site.toml",
                line: 11,
                key: "on-forward-failure",
                value: "\"ignore\"",
                allowed: "\"lock\", \"warn\""
            )
        ) {
            try plugin(["forward": .string("syslog"), "on-forward-failure": .string("ignore")])
        }
        #expect(
            throws: ConfigError.wrongType(
                file: "site.toml",
                line: 11,
                key: "syslog-socket",
                expected: "an absolute path of at most 107 bytes"
            )
        ) {
            try plugin(["forward": .string("syslog"), "syslog-socket": .string("dev/log")])
        }
        #expect(throws: ConfigError.self) {
            try plugin([
                "forward": .string("syslog"), "syslog-socket": .string("/" + String(repeating: "s", count: 107)),
            ])
        }
        #expect(throws: ConfigError.self) {
            try plugin(["forward": .string("syslog"), "syslog-socket": .integer(514)])
        }
    }

    @Test func forwardingKeys_withoutForward_areAConflict() {
        #expect(throws: ConfigError.self) { try plugin(["syslog-socket": .string("/dev/log")]) }
        #expect(throws: ConfigError.self) {
            try plugin(["forward": .string("off"), "on-forward-failure": .string("warn")])
        }
    }
}

/// Forwarding through the real plugin in a real chain, to a real rsyslogd, or to no daemon.
@Suite(.serialized) struct SyslogForwardingTests {
    let directory = TempDirectory()
    var path: String { directory.file("audit.jsonl") }

    private func chain(socket: String, onFailure: SyslogForwarder.FailurePolicy) -> InterceptorChain {
        let chain = InterceptorChain(
            clock: ManualClock(),
            session: SessionInfo(id: "s-1", user: "demo", role: .clinician)
        )
        chain.append(
            AuditLog(
                path: path,
                forwarder: SyslogForwarder(socketPath: socket),
                onForwardFailure: onFailure,
                clock: steppingClock()
            )
        )
        return chain
    }

    private func records() -> [(record: AuditRecord, line: [UInt8])] {
        lines(of: readBytes(path)).enumerated().compactMap { i, line in
            AuditRecord(line: i + 1, bytes: line[...]).map { ($0, line) }
        }
    }

    @Test func rsyslogReceivesOneMessagePerRecord_withItsKindSeqHashAndLine() throws {
        let daemon = try RsyslogDaemon(directory: directory.path)
        let chain = chain(socket: daemon.socketPath, onFailure: .lock)
        _ = chain.send(.session(.signedOn(user: "demo", role: .clinician)))
        #expect(chain.send(.line(Line("open MRN-1042"))).outcome == .delivered(.line(Line("open MRN-1042"))))
        _ = chain.send(.session(.accessed(RecordAccess(.opened, record: "MRN-1042", outcome: .ok))))
        _ = chain.send(.line(Line("show labs")))
        _ = chain.send(
            .session(.accessed(RecordAccess(.read, record: "MRN-1042", detail: "labs", outcome: .denied)))
        )
        _ = chain.send(
            .session(
                .accessed(RecordAccess(.brokeGlass, record: "R-7", detail: "code blue, bed 4 – ICU", outcome: .ok))
            )
        )
        _ = chain.send(.session(.locked(.idle)))
        _ = chain.send(.session(.signedOff(.user)))
        chain.removeAll()

        let written = records()
        #expect(written.count == 8)
        _ = daemon.messages(atLeast: written.count)
        daemon.stop()
        let received = daemon.messages()
        try #require(received.count == written.count, "\(received)")
        for ((record, line), message) in zip(written, received) {
            #expect(message.facility == 10)
            #expect(message.appName == "ward")
            #expect(message.hostname == record.object.string("host"))
            #expect(message.procID == "\(getpid())")
            #expect(message.msgID == record.kind)
            #expect(message.structuredData == "[ward@32473 seq=\"\(record.seq)\" hash=\"\(record.hash)\"]")
            #expect(message.msg == line)
        }
        #expect(received.map(\.severity) == [6, 6, 6, 6, 4, 5, 6, 6])
    }

    @Test func rsyslogRestarted_theNextRecordReconnects() throws {
        let first = try RsyslogDaemon(directory: directory.path)
        let chain = chain(socket: first.socketPath, onFailure: .lock)
        _ = chain.send(.session(.signedOn(user: "demo", role: .clinician)))
        #expect(first.messages(atLeast: 1).count == 1)
        first.stop()
        _ = unlink(first.socketPath)
        _ = unlink(first.outputPath)
        let second = try RsyslogDaemon(directory: directory.path)
        let sent = chain.send(.line(Line("charts")))
        #expect(sent.requests.isEmpty)
        #expect(second.messages(atLeast: 1).map(\.msgID) == ["command"])
    }

    @Test func noDaemon_withLock_deniesTheLine_andLocks_afterTheFileHasTheRecord() throws {
        let chain = chain(socket: directory.file("log"), onFailure: .lock)
        let sent = chain.send(.line(Line("open MRN-1042")))
        guard case .denied(let message, _) = sent.outcome else {
            Issue.record("expected a denial, got \(sent.outcome)")
            return
        }
        #expect(message.contains("syslog") && message.contains(directory.file("log")))
        #expect(sent.requests == [.lock(.failure)])
        #expect(records().map { $0.record.kind } == ["command"])
        // An event that grants nothing is a notice, as for the file.
        let locked = chain.send(.session(.locked(.failure))).requests
        #expect(locked.count == 1)
        if case .notice = locked.first {} else { Issue.record("expected a notice, got \(locked)") }
        #expect(records().map { $0.record.kind } == ["command", "lock"])
    }

    @Test func noDaemon_withWarn_passesTheLine_withANotice_andTheFileHasTheRecord() throws {
        let chain = chain(socket: directory.file("log"), onFailure: .warn)
        let sent = chain.send(.line(Line("open MRN-1042")))
        #expect(sent.outcome == .delivered(.line(Line("open MRN-1042"))))
        #expect(sent.requests.count == 1)
        if case .notice(let text) = sent.requests.first {
            #expect(text.contains("Audit record 1 is in the log but not sent to syslog"))
        } else {
            Issue.record("expected a notice, got \(sent.requests)")
        }
        #expect(records().map { $0.record.kind } == ["command"])
    }

    @Test func aRecordLongerThanRsyslogsLimit_arrivesCut_withItsSeqAndHashWhole() throws {
        let daemon = try RsyslogDaemon(directory: directory.path)
        let chain = chain(socket: daemon.socketPath, onFailure: .lock)
        let reason = String(repeating: "r", count: 20_000)
        let sent = chain.send(
            .session(.accessed(RecordAccess(.brokeGlass, record: "R-7", detail: reason, outcome: .ok)))
        )
        #expect(sent.requests.isEmpty)
        let (record, line) = try #require(records().first)
        let message = try #require(daemon.messages(atLeast: 1).first)
        #expect(message.structuredData == "[ward@32473 seq=\"1\" hash=\"\(record.hash)\"]")
        #expect(message.msg.count < line.count && message.msg == Array(line.prefix(message.msg.count)))
    }
}
