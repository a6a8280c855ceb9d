import AuditLog
import Foundation
import Glibc
import Logging
import SessionTestSupport
import Testing
import WardCore
import WardPluginAPI
import WardRecords
import WardShell

/// "On disk before shown", with the real pieces: a script's session (the driver and the batch
/// front end), the real audit log with `fsync = "always"`, and the records shell over a real
/// store writing through `BatchOutput`. Each line the shell writes is checked against the audit
/// log's file as it is at that moment.
struct OutputBarrierTests {
    /// Makes the audit log refuse writes (read-only, which `AuditWriter` checks before every
    /// append) once a line starting with `prefix` has been recorded: a disk that fails between
    /// a command's line and its accesses. Chained after the audit log, so the line's own record
    /// is written.
    final class FailAfterLine: Plugin {
        static let name = "fail-after-line"
        static let summary = "Makes the audit log read-only after a line is recorded."
        let log: String
        let prefix: String

        init(log: String, prefix: String) {
            self.log = log
            self.prefix = prefix
        }

        convenience init(settings: PluginSettings, environment: PluginEnvironment) {
            self.init(log: "", prefix: "")
        }

        func intercept(_ event: Event, context: PluginContext) -> Disposition {
            if case .line(let line) = event, !prefix.isEmpty, line.text.hasPrefix(prefix) { chmod(log, 0o400) }
            return .pass
        }
    }

    final class Session {
        let records: ShellFixture
        let auditPath: String
        /// A line on standard output, with the audit log's text when it was written.
        struct Shown {
            var line: String
            var audit: String
        }
        var shown: [Shown] = []
        var errors: [String] = []

        init() throws {
            records = try ShellFixture(role: nil)
            auditPath = records.home + "/audit.jsonl"
        }

        var audit: String { String(decoding: FileManager.default.contents(atPath: auditPath) ?? Data(), as: UTF8.self) }

        func standardOutput(_ line: String) { shown.append(Shown(line: line, audit: audit)) }

        func standardError(_ line: String) { errors.append(line) }

        /// Runs `script` as alice (a clinician) to its end; the exit status.
        func run(_ script: String, failingAfter prefix: String = "") throws -> WardPluginAPI.ExitStatus {
            let output = BatchOutput(
                format: .text,
                width: { 200 },
                standardOutput: { [unowned self] line in self.standardOutput(line) },
                standardError: { [unowned self] line in self.standardError(line) }
            )
            records.shell.output = output
            let chain = InterceptorChain(clock: ManualClock(), session: SessionInfo(id: "s-1"))
            let commandNames = Set(Shell.commands.map { $0.syntax.name })
            _ = chain.append(AuditLog(path: auditPath, policy: .always, commandNames: commandNames))
            _ = chain.append(FailAfterLine(log: auditPath, prefix: prefix))
            let credentials = try TestCredentials(users: ["alice": .clinician])
            let passwordFile = records.home + "/password"
            try (TestCredentials.password + "\n").write(toFile: passwordFile, atomically: true, encoding: .utf8)
            chmod(passwordFile, 0o600)
            let input = pipeHolding(script)
            defer { close(input) }
            let signals = TestSignals()
            let session = SessionDriver(
                frontEnd: BatchFrontEnd(
                    input: input,
                    options: .init(scriptName: "s.ward", user: "alice", password: .file(path: passwordFile)),
                    reporter: output,
                    stdout: nil
                ),
                clock: ManualClock(),
                chain: chain,
                runner: records.shell,
                credentials: credentials.store,
                policy: SessionMachine.Policy(),
                logger: Logger(label: "test"),
                signals: signals.install
            )
            return try session.run()
        }
    }

    /// The audit text holds an access record of `action` on `mrn`.
    static func hasAccess(_ audit: String, _ action: String, _ mrn: String) -> Bool {
        audit.split(separator: "\n").contains {
            $0.contains("\"kind\":\"access\"") && $0.contains("\"action\":\"\(action)\"")
                && $0.contains("\"mrn\":\"\(mrn)\"") && $0.contains("\"outcome\":\"ok\"")
        }
    }

    @Test func everyRecordShown_hasItsAccessInTheAuditLog_beforeItIsWritten() throws {
        let s = try Session()
        #expect(try s.run("find lovelace\nopen M1\nshow allergies\nopen M1\n") == .success)
        let listed = try #require(s.shown.first { $0.line.contains("Lovelace") })
        #expect(Self.hasAccess(listed.audit, "list", "M1"), "the row's list access precedes the table")
        let opened = try #require(s.shown.first { $0.line.hasPrefix("Opened M1") })
        #expect(Self.hasAccess(opened.audit, "open", "M1"))
        let allergy = try #require(s.shown.first { $0.line.contains("Peanut") || $0.line.contains("peanut") })
        #expect(Self.hasAccess(allergy.audit, "read", "M1"), "the read is on record before the section's rows")
        let again = try #require(s.shown.first { $0.line.contains("was open; read again") })
        #expect(again.audit.components(separatedBy: "\"action\":\"open\"").count == 3, "the second open too")
    }

    @Test func aLineThatShowsNoRecord_isOnRecordToo_beforeTheNextLine() throws {
        let s = try Session()
        #expect(try s.run("whoami\nfind nobodyatall\n") == .success)
        let whoami = try #require(s.shown.first { $0.line.hasPrefix("alice") })
        #expect(whoami.audit.contains("\"command\":\"whoami\""))
        #expect(s.audit.contains("\"command\":\"find\""))
    }

    @Test func anAccessTheAuditLogCannotWrite_showsNothingOfTheRecord_andLocks() throws {
        let s = try Session()
        let status = try s.run("open M1\nshow allergies\n", failingAfter: "show")
        chmod(s.auditPath, 0o600)
        #expect(status != .success)
        #expect(s.shown.contains { $0.line.hasPrefix("Opened M1") }, "the open before the failure was shown")
        #expect(!s.shown.contains { $0.line.lowercased().contains("peanut") }, "no allergy row reached stdout")
        #expect(!s.shown.contains { $0.line.contains("SUBSTANCE") }, "not even the table's header")
        #expect(s.errors.contains { $0.contains("s.ward:2: Not shown: the audit log cannot be written") })
        #expect(s.errors.contains { $0.contains("locked (failure)") })
        #expect(!Self.hasAccess(s.audit, "read", "M1"))
        #expect(s.audit.contains("\"command\":\"show\""), "the line itself was recorded")
    }

    @Test func aNoteTheAuditLogCannotRecord_isNotStored_andLocks() throws {
        let s = try Session()
        let status = try s.run("open M1\nnote Seen in clinic, stable.\n", failingAfter: "note")
        chmod(s.auditPath, 0o600)
        #expect(status != .success)
        #expect(s.errors.contains { $0.contains("s.ward:2: Not written: the audit log cannot be written") })
        #expect(s.errors.contains { $0.contains("locked (failure)") })
        #expect(!s.shown.contains { $0.line.hasPrefix("Note added") })
        // The lock closed the session's store: a store of its own reads what was kept.
        let store = try SQLiteRecordStore(home: s.records.home)
        defer { store.close() }
        let chart = try store.chart(mrn: "M1")
        #expect(chart.notes.isEmpty, "the note was not stored without its record")
        #expect(!s.audit.contains("\"action\":\"write\""))
    }

    @Test func aNote_isOnRecordAsStarted_beforeTheStoreHasIt_thenOk() throws {
        let s = try Session()
        #expect(try s.run("open M1\nnote Seen in clinic, stable.\n") == .success)
        let added = try #require(s.shown.first { $0.line.hasPrefix("Note added") })
        let writes = added.audit.split(separator: "\n").filter { $0.contains("\"action\":\"write\"") }
        #expect(writes.count == 2)
        #expect(writes.first?.contains("\"outcome\":\"started\"") == true)
        #expect(writes.last?.contains("\"outcome\":\"ok\"") == true)
        #expect(!s.audit.contains("Seen in clinic"), "never the note's text")
    }
}
