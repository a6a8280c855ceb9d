import AuditLog
import Glibc
import Testing
import WardCore

/// `ward audit rotate` and a log renamed by logrotate: the new file's `rotate` record, the head,
/// the numbering, and writers that keep working across a rotation.
@Suite struct AuditRotationTests {
    let directory = TempDirectory()
    var path: String { directory.file("audit.jsonl") }
    let rotator = AuditRecord.SessionFields(id: "rotator", user: "root", role: nil)

    private func records(_ file: String) -> [AuditRecord] {
        lines(of: readBytes(file)).enumerated().compactMap { AuditRecord(line: $0 + 1, bytes: $1[...]) }
    }

    private func append(_ writer: AuditWriter, _ mrn: String = "MRN-1") throws(AuditError) {
        try writer.append(
            .access(RecordAccess(.opened, record: mrn, outcome: .ok)),
            session: testSession,
            source: "tty"
        )
    }

    @Test func rotate_movesTheLogToDotOne_andStartsAFileThatChainsToIt() throws {
        let writer = try writeLog(path, count: 3)
        let old = records(path)
        let rotation = try #require(try writer.rotate(session: rotator, source: nil))

        #expect(records(path + ".1").map(\.hash) == old.map(\.hash))
        let first = try #require(records(path).first)
        #expect(records(path).count == 1)
        #expect(first.kind == "rotate")
        #expect(first.seq == 4)
        #expect(first.prev == old[2].hash)
        #expect(first.object.string("file") == "audit.jsonl.1")
        #expect(first.object.integer("records") == 3)
        #expect(first.object.string("how") == "command")
        #expect(rotation == AuditRotation(record: first))
        #expect(rotation.previous == AuditHead(seq: 3, hash: old[2].hash))
        #expect(headState(path) == .present(AuditHead(seq: 4, hash: first.hash)))

        var info = stat()
        #expect(stat(path, &info) == 0 && info.st_mode & 0o7777 == 0o600)
        #expect(access(path + ".rotating", F_OK) != 0)

        let report = try AuditVerifier().verifySeries(path: path)
        #expect(report.problem == nil)
        #expect(report.records == 4)
        #expect(report.files == 2)
        #expect(report.summary.hasPrefix("2 files, 4 records (seq 1–4)"))
    }

    @Test func rotatingAgain_numbersTheFilesAsLogrotateDoes() throws {
        let writer = try writeLog(path, count: 3)
        try writer.rotate(session: rotator, source: nil)
        try append(writer)
        try writer.rotate(session: rotator, source: nil)
        try append(writer)

        #expect(records(path + ".2").map(\.seq) == [1, 2, 3])
        #expect(records(path + ".1").map(\.seq) == [4, 5])
        #expect(records(path).map(\.seq) == [6, 7])
        #expect(records(path).first?.object.integer("records") == 2)
        let report = try AuditVerifier().verifySeries(path: path)
        #expect(report.problem == nil)
        #expect(report.files == 3 && report.records == 7)
    }

    @Test func rotatingALogWithoutRecords_doesNothing() throws {
        let writer = try AuditWriter(path: path)
        #expect(try writer.rotate(session: rotator, source: nil) == nil)
        #expect(access(path + ".1", F_OK) != 0)
        #expect(readBytes(path).isEmpty)
    }

    @Test func aKeyedLog_rotatesWithItsKey() throws {
        let chain = AuditChain(key: key("a site key of at least thirty-two bytes"))
        let writer = try writeLog(path, count: 2, chain: chain)
        try writer.rotate(session: rotator, source: nil)
        try append(writer)
        #expect(try AuditVerifier(chain: chain).verifySeries(path: path).problem == nil)
        #expect(try AuditVerifier().verifySeries(path: path).problem?.kind == .wrongKey)
    }

    @Test func rotatingWithAnotherKey_isRefused_andChangesNothing() throws {
        try writeLog(path, count: 2, chain: AuditChain(key: key("the right key, thirty-two bytes long"))).close()
        let before = readBytes(path)
        let writer = try AuditWriter(path: path, chain: AuditChain(key: key("the wrong key, thirty-two bytes long")))
        #expect(throws: AuditError.self) { try writer.rotate(session: rotator, source: nil) }
        #expect(readBytes(path) == before)
        #expect(access(path + ".1", F_OK) != 0)
    }

    /// Another writer of the same log (another session) keeps appending across the rotation, to
    /// the new file, and the series stays one chain.
    @Test func aRunningWriter_continuesInTheNewFile() throws {
        let session = try writeLog(path, count: 2)
        let admin = try AuditWriter(path: path)
        try admin.rotate(session: rotator, source: nil)
        try append(session, "MRN-after")

        #expect(records(path + ".1").map(\.seq) == [1, 2])
        #expect(records(path).map(\.seq) == [3, 4])
        #expect(records(path).last?.object.string("mrn") == "MRN-after")
        #expect(try AuditVerifier().verifySeries(path: path).problem == nil)
    }

    /// Several processes append while this one rotates between their appends: no record lands in
    /// a file after the next file's rotate record named that file's end.
    @Test func processesAppending_whileTheLogRotates_leaveOneSeries() throws {
        try writeLog(path, count: 1, policy: .always).close()
        let writers = 4
        let each = 100
        let pids = (0..<writers).map {
            startChild(
                mode: "append",
                log: path,
                environment: ["AUDITLOG_CHILD_ID": "w\($0)", "AUDITLOG_CHILD_COUNT": "\(each)"]
            )
        }
        // Rotate whenever a child has written to the current file, until they all end.
        let admin = try AuditWriter(path: path)
        var rotations = 0
        var running = Set(pids)
        var statuses: [Int32] = []
        while !running.isEmpty {
            for pid in running {
                var status: Int32 = 0
                if waitpid(pid, &status, WNOHANG) == pid {
                    running.remove(pid)
                    statuses.append((status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F))
                }
            }
            if records(path).contains(where: { $0.object.string("session")?.hasPrefix("w") == true }) {
                if try admin.rotate(session: rotator, source: nil) != nil { rotations += 1 }
            }
            usleep(2_000)  // paces the rotations among the children's appends; waits for nothing
        }
        #expect(statuses == Array(repeating: 0, count: writers))
        #expect(rotations > 0)

        let report = try AuditVerifier().verifySeries(path: path)
        #expect(report.problem == nil)
        #expect(report.records == 1 + writers * each + rotations)
        #expect(report.files == rotations + 1)
        // The rotations fell between the children's appends: some session wrote to two files.
        let files = (1...max(rotations, 1)).map { path + ".\($0)" } + [path]
        let sessionsByFile = files.map { Set(records($0).compactMap { $0.object.string("session") }) }
        let spanning = (0..<writers).filter { id in sessionsByFile.filter { $0.contains("w\(id)") }.count > 1 }
        #expect(!spanning.isEmpty)
    }

    /// `mv audit.jsonl audit.jsonl.1`, as logrotate does: the next record starts the new file with
    /// a rotate record naming `audit.jsonl.1`, and the session does not lock.
    @Test func aPlainRename_isContinued_byTheNextRecord() throws {
        let writer = try writeLog(path, count: 3)
        #expect(rename(path, path + ".1") == 0)
        try append(writer, "MRN-after")

        let now = records(path)
        #expect(now.map(\.seq) == [4, 5])
        #expect(now[0].kind == "rotate")
        #expect(now[0].object.string("how") == "renamed")
        #expect(now[0].object.string("file") == "audit.jsonl.1")
        #expect(now[0].object.integer("records") == 3)
        #expect(now[0].prev == records(path + ".1").last?.hash)
        #expect(try AuditVerifier().verifySeries(path: path).problem == nil)
    }

    /// A writer that stopped between its record and its head, and then a rename: the new file
    /// continues from the record, not from the head one behind it.
    @Test func aRenameAfterAWriterStoppedBeforeItsHead_continuesFromTheLastRecord() throws {
        try writeLog(path, count: 3).close()
        let headBefore = readBytes(AuditHead.path(forLog: path))
        try writeLog(path, count: 1).close()
        writeBytes(AuditHead.path(forLog: path), headBefore)  // the head one record behind
        #expect(rename(path, path + ".1") == 0)
        let writer = try AuditWriter(path: path)
        try append(writer)
        let first = try #require(records(path).first)
        #expect(first.object.string("how") == "renamed")
        #expect(first.seq == 5)
        #expect(first.object.integer("records") == 4)
        #expect(try AuditVerifier().verifySeries(path: path).problem == nil)
    }

    /// logrotate's `create`: an empty file in the log's place, and a new session's writer.
    @Test func aRenameWithAnEmptyFileCreated_isContinued_byANewWriter() throws {
        try writeLog(path, count: 3).close()
        #expect(rename(path, path + ".1") == 0)
        writeBytes(path, [])
        let writer = try AuditWriter(path: path)
        try append(writer)
        #expect(records(path).first?.object.string("how") == "renamed")
        #expect(try AuditVerifier().verifySeries(path: path).problem == nil)
    }

    /// `--renamed`, from logrotate's postrotate script: starts the file now; a second run (or one
    /// after a writer was first) does nothing.
    @Test func continueAfterRename_startsTheFileOnce() throws {
        try writeLog(path, count: 3).close()
        #expect(rename(path, path + ".1") == 0)
        let admin = try AuditWriter(path: path)
        #expect(try admin.continueAfterRename(session: rotator, source: nil)?.cause == .renamed)
        #expect(try admin.continueAfterRename(session: rotator, source: nil) == nil)
        #expect(records(path).count == 1)
        #expect(try AuditVerifier().verifySeries(path: path).problem == nil)
    }

    /// The log removed (not renamed): sessions keep working, the new file says the old one was
    /// missing, and verify reports it.
    @Test func aDeletedLog_isContinued_butVerifyReportsIt() throws {
        let writer = try writeLog(path, count: 3)
        #expect(unlink(path) == 0)
        try append(writer)
        let first = try #require(records(path).first)
        #expect(first.object.string("how") == "missing")
        #expect(first.object["file"] == .null)
        let problem = try AuditVerifier().verifySeries(path: path).problem
        #expect(problem?.kind == .deleted)
        #expect(problem?.file == path)
    }

    /// With older files beside it, a deleted log is still reported: `FILE.1` does not end with
    /// the record the head named.
    @Test func aDeletedLog_withOlderFilesBesideIt_isReported() throws {
        let writer = try writeLog(path, count: 3)
        try writer.rotate(session: rotator, source: nil)
        try append(writer)
        #expect(unlink(path) == 0)
        try append(writer)
        #expect(records(path).first?.object.string("how") == "missing")
        let problem = try AuditVerifier().verifySeries(path: path).problem
        #expect(problem?.kind == .deleted)
        #expect(problem?.file == path)
    }

    /// A rotation interrupted between its link and its rename leaves `FILE.1` as a second name
    /// of the log: verify skips it, and the next rotation clears it, on record.
    @Test func anInterruptedRotation_isRepairedByTheNext() throws {
        let writer = try writeLog(path, count: 2)
        #expect(link(path, path + ".1") == 0)
        let report = try AuditVerifier().verifySeries(path: path)
        #expect(report.problem == nil)
        #expect(report.warnings.contains { $0.contains("a rotation was interrupted") })
        try writer.rotate(session: rotator, source: nil)
        #expect(access(path + ".2", F_OK) != 0)
        #expect(records(path + ".1").count == 3)
        #expect(records(path + ".1").last?.kind == "repair")
        #expect(try AuditVerifier().verifySeries(path: path).problem == nil)
    }
}
