import AuditLog
import Glibc
import SessionTestSupport
import Testing
import WardCore

/// `fsync = "always"` at one `fdatasync` a command: a command line's record is written at once
/// and synced by the next sync of the log, its accesses' (before the command shows a record)
/// or the one at the prompt (`.promptReady`) for a command that noted none. Every other record
/// is synced as it is written. Whether the log has records waiting for a sync is what
/// `hasUnsyncedWrites` says; the real binary's `fdatasync` calls are counted in the end-to-end
/// tests (`OneSyncEndToEndTests`).
@Suite struct OneSyncPerCommandTests {
    let directory = TempDirectory()
    var path: String { directory.file("audit.jsonl") }

    private func chain(policy: AuditWriter.SyncPolicy = .always) -> (InterceptorChain, AuditLog) {
        let chain = InterceptorChain(clock: ManualClock(), session: SessionInfo(id: "s-1"))
        let log = AuditLog(path: path, policy: policy, commandNames: ["find", "whoami"], clock: steppingClock())
        _ = chain.append(log)
        return (chain, log)
    }

    @Test func aDeferredRecord_isWritten_andTheNextSyncCoversIt() throws {
        let writer = try AuditWriter(path: path, policy: .always, clock: steppingClock())
        let line = AuditEntry.command(LineSummary(command: "find"))
        try writer.append([line], session: testSession, source: "tty", deferringSync: true)
        #expect(writer.hasUnsyncedWrites, "written, left to the next sync")
        #expect(readText(path).contains("\"command\":\"find\""), "in the file at once")
        try writer.append(
            AuditEntry.access(RecordAccess(.listed, record: "W1", outcome: .ok)),
            session: testSession,
            source: "tty"
        )
        #expect(!writer.hasUnsyncedWrites, "the access's sync put both on disk")
        try writer.append([line], session: testSession, source: "tty", deferringSync: true)
        try writer.syncRecords()
        #expect(!writer.hasUnsyncedWrites)
        #expect(AuditVerifier().verify(bytes: readBytes(path), head: headState(path)).isIntact)
    }

    @Test func aLine_waitsForItsAccesses_whoseSyncCoversBoth() throws {
        let (chain, log) = chain()
        #expect(chain.send(.line(Line("find ada"))).requests.isEmpty)
        #expect(log.writer?.hasUnsyncedWrites == true)
        let accesses = ["W1", "W2"].map { RecordAccess(.listed, record: $0, outcome: .ok) }
        _ = chain.send(.session(.accessedTogether(accesses)))
        #expect(log.writer?.hasUnsyncedWrites == false)
        _ = chain.send(.session(.promptReady))
        #expect(log.writer?.hasUnsyncedWrites == false)
        chain.removeAll()
    }

    @Test func aLineThatNotedNoAccess_isSyncedWhenThePromptComesBack() throws {
        let (chain, log) = chain()
        _ = chain.send(.line(Line("whoami")))
        #expect(log.writer?.hasUnsyncedWrites == true)
        _ = chain.send(.session(.promptReady))
        #expect(log.writer?.hasUnsyncedWrites == false)
        chain.removeAll()
    }

    @Test func recordsThatAreNotLines_areSyncedAtOnce() throws {
        let (chain, log) = chain()
        _ = chain.send(.session(.signedOn(user: "alice", role: .clinician)))
        #expect(log.writer?.hasUnsyncedWrites == false)
        _ = chain.send(.line(Line("whoami")))
        _ = chain.send(.session(.locked(.idle)))
        #expect(log.writer?.hasUnsyncedWrites == false, "the lock's sync covers the line before it")
        chain.removeAll()
    }

    @Test func anAccessThatCannotBeWritten_isNotShown_andLocks() throws {
        let (chain, _) = chain()
        _ = chain.send(.line(Line("find ada")))
        #expect(chmod(path, 0o400) == 0)
        let sent = chain.send(.session(.accessed(RecordAccess(.listed, record: "W1", outcome: .ok))))
        #expect(sent.requests == [.lock(.failure)])
        guard case .denied(let message, _) = sent.outcome else {
            Issue.record("not denied: \(sent.outcome)")
            return
        }
        #expect(message.hasPrefix("Not shown: the audit log cannot be written"))
        let glass = [
            RecordAccess(.brokeGlass, record: "W1", detail: "emergency", outcome: .ok),
            RecordAccess(.opened, record: "W1", outcome: .ok),
        ]
        let broken = chain.send(.session(.accessedTogether(glass)))
        #expect(
            broken.outcome == .denied(message, by: "audit-log"),
            "a break of the glass with its open: not shown either"
        )
        chmod(path, 0o600)
        chain.removeAll()
    }

    @Test func interval_isUnchanged_everyRecordWaitsForTheTimer() throws {
        let (chain, log) = chain(policy: .interval)
        _ = chain.send(.session(.signedOn(user: "alice", role: .clinician)))
        _ = chain.send(.line(Line("whoami")))
        _ = chain.send(.session(.promptReady))
        #expect(log.writer?.hasUnsyncedWrites == true, "promptReady syncs only what `always` deferred")
        chain.removeAll()
    }
}
