import AuditLog
import Glibc
import Testing
import WardCore

/// A rotated log checked as one chain: every missing, reordered, cut or edited file is found and
/// named.
@Suite struct AuditSeriesTests {
    let directory = TempDirectory()
    var path: String { directory.file("audit.jsonl") }
    let rotator = AuditRecord.SessionFields(id: "rotator", user: "root", role: nil)

    /// `audit.jsonl.2` (records 1–3), `audit.jsonl.1` (4–6), `audit.jsonl` (7–9).
    init() throws {
        let writer = try writeLog(directory.file("audit.jsonl"), count: 3)
        for _ in 0..<2 {
            try writer.rotate(session: rotator, source: nil)
            for i in 0..<2 {
                try writer.append(
                    .access(RecordAccess(.read, record: "MRN-\(i)", detail: "labs", outcome: .ok)),
                    session: testSession,
                    source: "tty"
                )
            }
        }
        writer.close()
    }

    private func verify(startAfter: String? = nil) throws -> AuditReport {
        try AuditVerifier().verifySeries(path: path, startAfter: startAfter)
    }

    private func editLine(_ file: String, _ index: Int, _ old: String, _ new: String) {
        var parts = lines(of: readBytes(file))
        parts[index] = Array(String(decoding: parts[index], as: UTF8.self).replacing(old, with: new).utf8)
        writeBytes(file, joinLines(parts))
    }

    @Test func anIntactSeries_verifies() throws {
        let report = try verify()
        #expect(report.problem == nil)
        #expect(report.files == 3)
        #expect(report.records == 9)
        #expect(report.firstSeq == 1 && report.lastSeq == 9)
        #expect(report.warnings.isEmpty)
    }

    @Test func theOldestFileDeleted_isDeleted_namingTheFileThatContinuesIt() throws {
        #expect(unlink(path + ".2") == 0)
        let problem = try #require(try verify().problem)
        #expect(problem.kind == .deleted)
        #expect(problem.file == path + ".1")
        #expect(problem.line == 1)
        #expect(problem.detail.contains("--start-after"))
    }

    /// After archiving: the auditor names where the series legitimately starts.
    @Test func theOldestFileArchived_verifiesWithStartAfter_itsLastHash() throws {
        let archived = lines(of: readBytes(path + ".2")).last.flatMap { AuditRecord(line: 3, bytes: $0[...]) }
        #expect(unlink(path + ".2") == 0)
        let report = try verify(startAfter: archived?.hash)
        #expect(report.problem == nil)
        #expect(report.records == 6 && report.files == 2)
        #expect(try verify(startAfter: String(repeating: "a", count: 64)).problem?.kind == .deleted)
    }

    @Test func aMiddleFileDeleted_isAGap_namingIt() throws {
        #expect(unlink(path + ".1") == 0)
        let problem = try #require(try verify().problem)
        #expect(problem.kind == .deleted)
        #expect(problem.file == path + ".1")
    }

    @Test func theMiddleFileRenumbered_intoTheGap_isDeleted() throws {
        // .2 deleted and .1 renamed to .2: no gap in the numbers, but the current file continues
        // a file that is not here.
        #expect(unlink(path + ".2") == 0)
        #expect(rename(path + ".1", path + ".2") == 0)
        #expect(try verify().problem?.kind == .deleted)
    }

    @Test func swappedFiles_areReordered() throws {
        #expect(rename(path + ".2", directory.file("t")) == 0)
        #expect(rename(path + ".1", path + ".2") == 0)
        #expect(rename(directory.file("t"), path + ".1") == 0)
        let problem = try #require(try verify().problem)
        #expect(problem.kind == .reordered)
        #expect(problem.file == path + ".2")
    }

    @Test func anEditedOlderFile_isModified_namingTheFileAndLine() throws {
        editLine(path + ".2", 1, "MRN-1001", "MRN-9999")
        let problem = try #require(try verify().problem)
        #expect(problem.kind == .modified)
        #expect(problem.file == path + ".2")
        #expect(problem.line == 2)
        #expect(problem.seq == 2)
    }

    @Test func anEditedCurrentFile_isModified() throws {
        editLine(path, 1, "MRN-0", "MRN-9")
        let problem = try #require(try verify().problem)
        #expect(problem.kind == .modified)
        #expect(problem.file == path)
        #expect(problem.line == 2)
    }

    @Test func anEditedRotateRecord_isModified() throws {
        editLine(path + ".1", 0, #""records":3"#, #""records":4"#)
        let problem = try #require(try verify().problem)
        #expect(problem.kind == .modified)
        #expect(problem.file == path + ".1")
        #expect(problem.line == 1)
    }

    @Test func theLastRecordsOfAnOlderFileCut_isTruncated() throws {
        writeBytes(path + ".1", joinLines(Array(lines(of: readBytes(path + ".1")).dropLast())))
        let problem = try #require(try verify().problem)
        #expect(problem.kind == .truncated)
        #expect(problem.file == path + ".1")
    }

    @Test func aRecordAddedToAnOlderFile_isInserted() throws {
        let extra = lines(of: readBytes(path)).last!
        writeBytes(path + ".1", readBytes(path + ".1") + extra + [0x0A])
        let problem = try #require(try verify().problem)
        #expect(problem.kind == .inserted)
        #expect(problem.file == path + ".1")
    }

    @Test func aNewLogBesideRotatedFiles_isDeleted() throws {
        // The log and its head removed, and a new chain begun in their place.
        #expect(unlink(path) == 0)
        #expect(unlink(AuditHead.path(forLog: path)) == 0)
        try writeLog(path, count: 2).close()
        let problem = try #require(try verify().problem)
        #expect(problem.kind == .deleted)
        #expect(problem.file == path)
    }

    /// Between logrotate's rename (`nocreate`) and the next record, the log is missing: intact,
    /// with a warning, while the head names the last record of `.1`.
    @Test func theCurrentLogMissingAfterARename_isIntact() throws {
        #expect(rename(path + ".2", path + ".3") == 0)
        #expect(rename(path + ".1", path + ".2") == 0)
        #expect(rename(path, path + ".1") == 0)
        let report = try verify()
        #expect(report.problem == nil)
        #expect(report.warnings.contains { $0.contains("the log is empty") })
    }

    /// The log and its head removed together: what followed `.1` is gone, and that is reported.
    @Test func theCurrentLogAndItsHeadRemoved_isDeleted() throws {
        #expect(unlink(path) == 0)
        #expect(unlink(AuditHead.path(forLog: path)) == 0)
        let problem = try #require(try verify().problem)
        #expect(problem.kind == .deleted)
        #expect(problem.file == path)
    }

    @Test func aCompressedFile_isNamedInTheGap() throws {
        #expect(rename(path + ".1", path + ".1.gz") == 0)
        let problem = try #require(try verify().problem)
        #expect(problem.kind == .deleted)
        #expect(problem.detail.contains("gunzip"))
    }
}
