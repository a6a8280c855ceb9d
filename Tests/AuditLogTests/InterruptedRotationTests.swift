import AuditLog
import Glibc
import Testing
import WardCore

/// Every state a rotation killed part-way can leave: told from a deleted file, rolled back by
/// the next rotation or a repair, on record, with no record lost.
@Suite struct InterruptedRotationTests {
    let directory = TempDirectory()
    var path: String { directory.file("audit.jsonl") }
    let rotator = AuditRecord.SessionFields(id: "rotator", user: nil, role: nil)

    private func records(_ file: String) -> [AuditRecord] {
        lines(of: readBytes(file)).enumerated().compactMap { AuditRecord(line: $0 + 1, bytes: $1[...]) }
    }

    private func append(_ writer: AuditWriter) throws(AuditError) {
        try writer.append(
            .access(RecordAccess(.opened, record: "MRN-1", outcome: .ok)),
            session: testSession,
            source: nil
        )
    }

    /// A log rotated three times: `FILE.3 … FILE.1, FILE`, 11 records.
    private func series() throws -> AuditWriter {
        let writer = try writeLog(path, count: 3)
        for _ in 0..<3 {
            try writer.rotate(session: rotator, source: nil)
            try append(writer)
        }
        #expect(try AuditVerifier().verifySeries(path: path).problem == nil)
        return writer
    }

    /// Every record of the series, oldest first.
    private func allSeqs() -> [Int64] {
        (1...20).reversed().filter { access(path + ".\($0)", F_OK) == 0 }
            .flatMap { records(path + ".\($0)").map(\.seq) } + records(path).map(\.seq)
    }

    @Test func aShiftStoppedPartWay_isAnInterruptedRotation_notADeletion_andRepairPutsItBack() throws {
        let writer = try series()
        let before = allSeqs()
        // Killed after FILE.3 went to FILE.4 and FILE.2 to FILE.3, before FILE.1 moved.
        #expect(rename(path + ".3", path + ".4") == 0)
        #expect(rename(path + ".2", path + ".3") == 0)
        let report = try AuditVerifier().verifySeries(path: path)
        #expect(report.problem?.kind == .interrupted)
        #expect(report.problem?.detail.contains("no record is missing") == true)

        let repaired = try #require(try writer.repairInterruptedRotation(session: rotator, source: nil))
        #expect(repaired.gap == 2)
        #expect(try AuditVerifier().verifySeries(path: path).problem == nil)
        #expect(allSeqs() == before + [before.last! + 1], "every record kept, and the repair's")
        let record = try #require(records(path).last)
        #expect(record.kind == "repair")
        #expect(record.object.string("repaired")?.contains("audit.jsonl.2") == true)
    }

    @Test func aDeletedFile_staysADeletion_andIsNotRepaired() throws {
        let writer = try series()
        #expect(unlink(path + ".2") == 0)
        let report = try AuditVerifier().verifySeries(path: path)
        #expect(report.problem?.kind == .deleted)
        #expect(try writer.repairInterruptedRotation(session: rotator, source: nil) == nil)
    }

    @Test func aSecondNameAndAShiftedSeries_areRolledBack_byTheNextRotate() throws {
        let writer = try series()
        let before = allSeqs()
        // Killed after the shift and the link, before the new file replaced the log.
        for n in [3, 2, 1] { #expect(rename(path + ".\(n)", path + ".\(n + 1)") == 0) }
        #expect(link(path, path + ".1") == 0)
        writeBytes(path + ".rotating", Array("{}\n".utf8))
        #expect(try AuditVerifier().verifySeries(path: path).problem?.kind == .interrupted)

        let rotation = try #require(try writer.rotate(session: rotator, source: nil))
        #expect(rotation.cause == .command)
        #expect(access(path + ".rotating", F_OK) != 0)
        let report = try AuditVerifier().verifySeries(path: path)
        #expect(report.problem == nil)
        #expect(report.files == 5)
        // The old log's records, then the repair (in the old log), then the new file's rotate.
        #expect(allSeqs() == before + [before.last! + 1, before.last! + 2])
        #expect(records(path + ".1").last?.kind == "repair")
    }

    @Test func onlyTheTemporaryFileLeft_verifies_andTheNextRepairRemovesIt() throws {
        let writer = try series()
        writeBytes(path + ".rotating", Array("{}\n".utf8))
        #expect(try AuditVerifier().verifySeries(path: path).problem == nil)
        let repaired = try #require(try writer.repairInterruptedRotation(session: rotator, source: nil))
        #expect(repaired.leftover == path + ".rotating" && repaired.gap == nil)
        #expect(access(path + ".rotating", F_OK) != 0)
    }
}
