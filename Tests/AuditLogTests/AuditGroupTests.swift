import AuditLog
import Glibc
import SessionTestSupport
import Testing
import WardCore

/// A command's accesses (a `find`'s rows) appended as one group: one lock, one write, one sync
/// and one head update, each access still its own hash-chained record.
@Suite struct AuditGroupTests {
    let directory = TempDirectory()
    var path: String { directory.file("audit.jsonl") }
    var headPath: String { AuditHead.path(forLog: path) }

    private func listed(_ mrns: [String]) -> [AuditEntry] {
        mrns.map { AuditEntry.access(RecordAccess(.listed, record: $0, outcome: .ok)) }
    }

    private func records(_ file: String) -> [AuditRecord] {
        lines(of: readBytes(file)).enumerated().compactMap { AuditRecord(line: $0 + 1, bytes: $1[...]) }
    }

    @Test func aGroup_isARecordEach_chained_withTheHeadAtItsLast_andVerifies() throws {
        let writer = try writeLog(path, count: 2, policy: .always)
        let written = try writer.append(listed(["W1", "W2", "W3"]), session: testSession, source: "batch:x:1")
        #expect(written.map(\.seq) == [3, 4, 5])
        let rs = records(path)
        #expect(rs.map(\.seq) == [1, 2, 3, 4, 5])
        #expect(rs[2...].map { $0.object.string("mrn") } == ["W1", "W2", "W3"])
        for (before, after) in zip(rs, rs.dropFirst()) { #expect(after.prev == before.hash) }
        // Each `Written` is its record's line, as the forwarder sends it.
        #expect(written.map { AuditRecord(line: 0, bytes: $0.line)?.hash } == rs[2...].map(\.hash))
        #expect(headState(path) == .present(AuditHead(seq: 5, hash: rs[4].hash)))
        #expect(AuditVerifier().verify(bytes: readBytes(path), head: headState(path)).isIntact)
        // The writer's memory of the end still holds: the next record follows on.
        try writer.append(.command(LineSummary(command: "open")), session: testSession, source: "tty")
        #expect(records(path).last?.seq == 6)
        #expect(AuditVerifier().verify(bytes: readBytes(path), head: headState(path)).isIntact)
    }

    @Test func anEmptyGroup_writesNothing() throws {
        let writer = try writeLog(path, count: 1)
        #expect(try writer.append([], session: testSession, source: nil).isEmpty)
        #expect(records(path).count == 1)
    }

    /// A crash in the middle of the group's write: the records before the cut are whole, the
    /// cut one is torn, the head still names the record before the group. Verify finds no
    /// tampering; the next writer closes the torn line and continues from the last whole record.
    @Test func aCrashMidGroup_leavesWholeRecordsAndATornOne_andTheNextWriterContinues() throws {
        try writeLog(path, count: 2).close()
        let headBefore = readBytes(headPath)
        let sizeBefore = readBytes(path).count
        try writeLog(path, count: 0).append(listed(["W1", "W2", "W3"]), session: testSession, source: nil)
        let whole = readBytes(path)
        let thirdStart = sizeBefore + lines(of: whole)[2].count + 1 + lines(of: whole)[3].count + 1
        writeBytes(path, Array(whole[..<(thirdStart + 40)]))  // the group's last record cut short
        writeBytes(headPath, headBefore)  // and the head never moved

        let report = AuditVerifier().verify(bytes: readBytes(path), head: headState(path))
        #expect(report.problem == nil)
        #expect(report.lastSeq == 4)
        #expect(!report.warnings.isEmpty, "the torn line and the head behind are reported")

        let writer = try AuditWriter(path: path, policy: .always, clock: steppingClock())
        try writer.append(listed(["W4", "W5"]), session: testSession, source: nil)
        let rs = records(path)
        #expect(rs.map(\.seq) == [1, 2, 3, 4, 5, 6])
        #expect(rs.map { $0.object.string("mrn") }.suffix(4) == ["W1", "W2", "W4", "W5"])
        #expect(rs[4].prev == rs[3].hash, "the chain goes straight past the torn line")
        let after = AuditVerifier().verify(bytes: readBytes(path), head: headState(path))
        #expect(after.problem == nil)
        #expect(headState(path) == .present(AuditHead(seq: 6, hash: rs[5].hash)))
    }

    /// A crash between a group and its head, and then a rename (logrotate): the new file
    /// continues from the group's last record, several past the head, and names `FILE.1`.
    @Test func aRenameAfterAGroupWhoseHeadDidNotMove_continuesFromTheGroupsLastRecord() throws {
        try writeLog(path, count: 2).close()
        let headBefore = readBytes(headPath)
        try writeLog(path, count: 0).append(listed(["W1", "W2", "W3"]), session: testSession, source: nil)
        writeBytes(headPath, headBefore)  // three records behind
        #expect(rename(path, path + ".1") == 0)

        let writer = try AuditWriter(path: path, clock: steppingClock())
        try writer.append(.command(LineSummary(command: "find")), session: testSession, source: "tty")
        let first = try #require(records(path).first)
        #expect(first.object.string("how") == "renamed")
        #expect(first.seq == 6)
        #expect(first.object.integer("records") == 5)
        #expect(try AuditVerifier().verifySeries(path: path).problem == nil)
    }

    /// A head that names a record FILE.1 does not hold (edited) is not taken for a lagging head.
    @Test func aRenamedFileThatDoesNotHoldTheHeadsRecord_isMissing() throws {
        try writeLog(path, count: 2).close()
        try writeLog(path, count: 0).append(listed(["W1", "W2", "W3"]), session: testSession, source: nil)
        let stranger = AuditHead(seq: 3, hash: String(repeating: "0", count: 64))
        writeBytes(headPath, stranger.line(chain: AuditChain()))
        #expect(rename(path, path + ".1") == 0)

        let writer = try AuditWriter(path: path, clock: steppingClock())
        try writer.append(.command(LineSummary(command: "find")), session: testSession, source: "tty")
        #expect(records(path).first?.object.string("how") == "missing")
    }

    /// Through the plugin: a `find`'s rows arrive as one event, become one record each, carry
    /// the line's source, and `ward audit show --mrn` (`AuditFilter`) finds every patient listed.
    @Test func theAuditLog_writesAFindsRows_asRecordsAnAuditorFindsByMRN() throws {
        let chain = InterceptorChain(clock: ManualClock(), session: SessionInfo(id: "s-1"))
        chain.append(AuditLog(path: path, policy: .always, commandNames: ["find"], clock: steppingClock()))
        _ = chain.send(.line(Line("find lovelace", source: .batch(file: "rounds.ward", line: 2))))
        let mrns = ["W1", "W2", "W3"]
        let sent = chain.send(
            .session(.accessedTogether(mrns.map { RecordAccess(.listed, record: $0, outcome: .ok) }))
        )
        #expect(sent.requests.isEmpty)
        chain.removeAll()

        let rs = records(path)
        #expect(rs.map { $0.kind ?? "" } == ["command", "access", "access", "access"])
        #expect(rs.dropFirst().allSatisfy { $0.object.string("source") == "batch:rounds.ward:2" })
        for mrn in mrns {
            let found = rs.filter(AuditFilter(mrn: mrn).matches)
            #expect(found.count == 1)
            #expect(found.first?.object.string("action") == "list" && found.first?.object.string("outcome") == "ok")
        }
        #expect(!readText(path).contains("lovelace"), "never what was searched for")
        #expect(AuditVerifier().verify(bytes: readBytes(path), head: headState(path)).isIntact)
    }

    /// A group that showed records and cannot be written locks the session, as one access does.
    @Test func aGroupThatCannotBeWritten_locks() throws {
        let chain = InterceptorChain(clock: ManualClock(), session: SessionInfo(id: "s-1"))
        chain.append(AuditLog(path: path, policy: .always, commandNames: ["find"], clock: steppingClock()))
        _ = chain.send(.line(Line("find a")))
        #expect(chmod(path, 0o400) == 0)
        let sent = chain.send(
            .session(.accessedTogether(["W1", "W2"].map { RecordAccess(.listed, record: $0, outcome: .ok) }))
        )
        #expect(sent.requests == [.lock(.failure)])
        chain.removeAll()
    }

    /// With `always` each record is synced before Ward goes on; its head file by `sync()`, which
    /// the plugin's timer and closing call: after a power cut the head can only lag its records.
    @Test func always_leavesTheHeadToSync_andSyncSyncsIt() throws {
        let writer = try AuditWriter(path: path, policy: .always, clock: steppingClock())
        try writer.append(listed(["W1", "W2"]), session: testSession, source: nil)
        #expect(!writer.hasUnsyncedWrites, "the records themselves are on disk")
        #expect(writer.headIsUnsynced && writer.needsSync)
        try writer.sync()
        #expect(!writer.needsSync)
        let never = try AuditWriter(path: directory.file("never.jsonl"), policy: .never, clock: steppingClock())
        try never.append(listed(["W1"]), session: testSession, source: nil)
        #expect(never.hasUnsyncedWrites && never.headIsUnsynced)
    }
}
