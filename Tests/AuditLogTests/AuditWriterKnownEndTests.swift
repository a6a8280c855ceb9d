import AuditLog
import Glibc
import Testing
import WardCore

/// A writer keeps the end it left in memory (`AuditWriter.KnownEnd`) and trusts it only while
/// the files' bytes say nothing changed: each check `append` made by re-reading must still fire
/// when the change comes between two records of the same writer.
@Suite struct AuditWriterKnownEndTests {
    let directory = TempDirectory()
    var path: String { directory.file("audit.jsonl") }
    var headPath: String { AuditHead.path(forLog: path) }

    private func append(_ writer: AuditWriter, _ mrn: String = "MRN-1") throws(AuditError) {
        try writer.append(
            .access(RecordAccess(.opened, record: mrn, outcome: .ok)),
            session: testSession,
            source: "tty"
        )
    }

    private func expectHeadMismatch(_ writer: AuditWriter) {
        let error = #expect(throws: AuditError.self) { try append(writer) }
        guard case .headMismatch = error else {
            Issue.record("expected headMismatch, got \(String(describing: error))")
            return
        }
    }

    @Test func twoWriters_appendingByTurns_eachContinueTheOthersChain() throws {
        let first = try AuditWriter(path: path, policy: .never)
        let second = try AuditWriter(path: path, policy: .never)
        for i in 0..<20 { try append(i % 3 == 0 ? second : first, "MRN-\(i)") }
        let report = AuditVerifier().verify(bytes: readBytes(path), head: headState(path))
        #expect(report.isIntact)
        #expect(report.lastSeq == 20)
        #expect(headState(path) == .present(AuditHead(seq: 20, hash: report.lastHash ?? "")))
    }

    /// The head file is rewritten in place and cut only when it may be longer than the new
    /// line: across `seq` 9 to 10 (a longer line) and on, it holds exactly the last head.
    @Test func headFile_holdsExactlyTheLastHead_asItsLineGrows() throws {
        let writer = try AuditWriter(path: path, policy: .never)
        for i in 0..<12 {
            try append(writer, "MRN-\(i)")
            let report = AuditVerifier().verify(bytes: readBytes(path), head: headState(path))
            let expected = AuditHead(seq: Int64(i + 1), hash: report.lastHash ?? "").line(chain: AuditChain())
            #expect(readBytes(headPath) == expected)
        }
    }

    @Test func recordsCutFromTheEnd_betweenTwoAppends_areRefused() throws {
        let writer = try writeLog(path, count: 5)
        writeBytes(path, joinLines(Array(lines(of: readBytes(path)).prefix(4))))
        expectHeadMismatch(writer)
        #expect(lines(of: readBytes(path)).count == 4)
    }

    @Test func lastRecordsHashEdited_inPlace_isRefused() throws {
        let writer = try writeLog(path, count: 3)
        var bytes = readBytes(path)
        // The hash's last hex digit, just before `"}` and the newline.
        let digit = bytes.count - 4
        bytes[digit] = bytes[digit] == UInt8(ascii: "0") ? UInt8(ascii: "1") : UInt8(ascii: "0")
        let fd = open(path, O_WRONLY)
        #expect(pwrite(fd, [bytes[digit]], 1, off_t(digit)) == 1)
        close(fd)
        expectHeadMismatch(writer)
    }

    @Test func headReplaced_withOneOfTheSameLength_isRefused() throws {
        let writer = try writeLog(path, count: 3)
        var head = readBytes(headPath)
        // A mac digit changed: same size, not the bytes this writer wrote, and not a valid head.
        let digit = head.count - 4
        head[digit] = head[digit] == UInt8(ascii: "0") ? UInt8(ascii: "1") : UInt8(ascii: "0")
        let fd = open(headPath, O_WRONLY)
        #expect(pwrite(fd, [head[digit]], 1, off_t(digit)) == 1)
        close(fd)
        expectHeadMismatch(writer)
    }

    @Test func headMovedBack_afterRecordsWereCut_isReadAgain_notTrustedFromMemory() throws {
        // Someone cuts the last record and writes an older head back: a valid pair again, which
        // the writer must read from the files rather than trust its memory of the cut record.
        let writer = try writeLog(path, count: 3)
        let oldHead = readBytes(headPath)
        let oldSize = readBytes(path).count
        try append(writer)
        writeBytes(path, Array(readBytes(path).prefix(oldSize)))
        writeBytes(headPath, oldHead)
        try append(writer)
        let report = AuditVerifier().verify(bytes: readBytes(path), head: headState(path))
        #expect(report.isIntact)
        #expect(report.lastSeq == 4)
    }

    @Test func aTornLineLeftByAnotherWriter_isClosedBeforeTheNextRecord() throws {
        let writer = try writeLog(path, count: 2)
        let fd = open(path, O_WRONLY | O_APPEND)
        #expect(write(fd, "{\"seq\":3,\"ts\"", 14) == 14)
        close(fd)
        try append(writer)
        let report = AuditVerifier().verify(bytes: readBytes(path), head: headState(path))
        #expect(report.lastSeq == 3)
        #expect(lines(of: readBytes(path)).count == 4)
    }
}
