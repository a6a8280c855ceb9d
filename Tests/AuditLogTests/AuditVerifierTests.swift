import AuditLog
import Testing

/// The tamper matrix: each change to a 10-record log is found, named, and placed.
@Suite struct AuditVerifierTests {
    let directory = TempDirectory()
    var path: String { directory.file("audit.jsonl") }

    init() throws {
        try writeLog(directory.file("audit.jsonl"), count: 10).close()
    }

    private func verify(
        _ bytes: [UInt8],
        chain: AuditChain = AuditChain(),
        head: AuditVerifier.HeadState? = nil
    )
        -> AuditReport
    {
        AuditVerifier(chain: chain).verify(bytes: bytes, head: head ?? headState(path, chain: chain))
    }

    private func edited(_ line: [UInt8], _ old: String, _ new: String) -> [UInt8] {
        let text = String(decoding: line, as: UTF8.self)
        precondition(text.contains(old))
        return Array(text.replacing(old, with: new).utf8)
    }

    /// Changes a record and recomputes its hash, as someone without the key but with the format would.
    private func rehashed(_ line: [UInt8], _ old: String, _ new: String, chain: AuditChain = AuditChain()) -> [UInt8] {
        let record = AuditRecord(line: 1, bytes: line[...])!
        let body = edited(record.body, old, new)
        return Array(AuditRecord.line(body: body, hash: chain.hash(prev: record.prev, body: body)).dropLast())
    }

    @Test func intactLog_verifies() {
        let report = verify(readBytes(path))
        #expect(report.isIntact)
        #expect(report.records == 10)
        #expect(report.warnings.isEmpty)
        #expect(report.summary.hasPrefix("10 records (seq 1–10), 2026-11-22T00:00:00.001Z to 2026-11-22T00:00:00.010Z"))
    }

    @Test func editedField_isModified() {
        var parts = lines(of: readBytes(path))
        parts[4] = edited(parts[4], "MRN-1004", "MRN-9999")
        let problem = verify(joinLines(parts)).problem
        #expect(problem?.kind == .modified)
        #expect(problem?.line == 5)
        #expect(problem?.seq == 5)
    }

    @Test func editedAndRehashedRecord_isModified_atThatRecord() {
        var parts = lines(of: readBytes(path))
        parts[4] = rehashed(parts[4], "MRN-1004", "MRN-9999")
        let problem = verify(joinLines(parts)).problem
        #expect(problem?.kind == .modified)
        #expect(problem?.line == 5)
    }

    @Test func deletedRecord_isDeleted() {
        var parts = lines(of: readBytes(path))
        parts.remove(at: 4)
        let problem = verify(joinLines(parts)).problem
        #expect(problem?.kind == .deleted)
        #expect(problem?.seq == 5)
        #expect(problem?.line == 5)
    }

    @Test func deletedFirstRecord_isDeleted() {
        var parts = lines(of: readBytes(path))
        parts.remove(at: 0)
        #expect(verify(joinLines(parts)).problem?.kind == .deleted)
    }

    @Test func insertedCopy_isInserted() {
        var parts = lines(of: readBytes(path))
        parts.insert(parts[2], at: 3)
        let problem = verify(joinLines(parts)).problem
        #expect(problem?.kind == .inserted)
        #expect(problem?.line == 4)
    }

    @Test func insertedForgedRecord_isInserted() {
        var parts = lines(of: readBytes(path))
        parts.insert(edited(parts[3], "MRN-1003", "MRN-6666"), at: 3)
        let problem = verify(joinLines(parts)).problem
        #expect(problem?.kind == .inserted)
        #expect(problem?.line == 4)
    }

    @Test func insertedJunkLine_isInserted() {
        var parts = lines(of: readBytes(path))
        parts.insert(Array("nothing to see here".utf8), at: 6)
        let problem = verify(joinLines(parts)).problem
        #expect(problem?.kind == .inserted)
        #expect(problem?.line == 7)
    }

    @Test func swappedRecords_areReordered() {
        var parts = lines(of: readBytes(path))
        parts.swapAt(3, 4)
        let problem = verify(joinLines(parts)).problem
        #expect(problem?.kind == .reordered)
        #expect(problem?.line == 4)
        #expect(problem?.seq == 5)
    }

    @Test func recordCutInTheMiddle_isTruncated() {
        var parts = lines(of: readBytes(path))
        parts[4] = Array(parts[4].prefix(parts[4].count / 2))
        let problem = verify(joinLines(parts)).problem
        #expect(problem?.kind == .truncated)
        #expect(problem?.line == 5)
    }

    @Test func fileCutInTheMiddle_isTruncated() {
        let bytes = readBytes(path)
        let problem = verify(Array(bytes.prefix(bytes.count / 2))).problem
        #expect(problem?.kind == .truncated)
    }

    @Test func recordsRemovedFromTheEnd_areTruncated() {
        let parts = lines(of: readBytes(path))
        let problem = verify(joinLines(Array(parts.prefix(7)))).problem
        #expect(problem?.kind == .truncated)
        #expect(problem?.seq == 8)
        #expect(problem?.line == 8)
    }

    @Test func recordsRemovedFromTheEnd_withoutHeadFile_warn() {
        let parts = lines(of: readBytes(path))
        let report = verify(joinLines(Array(parts.prefix(7))), head: .absent)
        #expect(report.isIntact)
        #expect(report.warnings.contains { $0.contains("no head file") })
    }

    @Test func lastRecordRehashed_isFoundByTheHead() {
        var parts = lines(of: readBytes(path))
        parts[9] = rehashed(parts[9], "MRN-1009", "MRN-9999")
        #expect(verify(joinLines(parts)).problem?.kind == .modified)
    }

    @Test func changedHeadFile_isModified() {
        let report = verify(readBytes(path), head: .unreadable)
        #expect(report.problem?.kind == .modified)
    }

    @Test func tornLastLine_isReportedAsTorn_notTampering() {
        let bytes = readBytes(path)
        let parts = lines(of: bytes)
        let torn = bytes + Array(parts[9].prefix(40))
        let report = verify(torn)
        #expect(report.isIntact)
        #expect(report.records == 10)
        #expect(report.warnings.contains { $0.contains("torn by a crash") })
    }

    @Test func tornLineClosedByALaterWriter_isReportedAsTorn() throws {
        let bytes = readBytes(path)
        writeBytes(path, bytes + Array(lines(of: bytes)[9].prefix(40)))
        let writer = try AuditWriter(path: path, policy: .never, clock: steppingClock())
        try writer.append(.signOn(), session: testSession, source: nil)
        writer.close()
        let report = verify(readBytes(path))
        #expect(report.isIntact)
        #expect(report.records == 11)
        #expect(report.warnings.contains { $0.contains("interrupted write") })
    }

    @Test func tornEdits_doNotHideEarlierTampering() {
        var parts = lines(of: readBytes(path))
        parts[2] = edited(parts[2], "MRN-1002", "MRN-7777")
        var bytes = joinLines(parts)
        bytes += Array(parts[9].prefix(30))
        #expect(verify(bytes).problem?.kind == .modified)
    }
}

/// Keys: the same log under another key is found as a whole, not record by record.
@Suite struct AuditKeyedVerifierTests {
    let directory = TempDirectory()

    @Test func keyedLog_verifiesWithItsKey() throws {
        let path = directory.file("keyed.jsonl")
        try writeLog(path, count: 5, chain: AuditChain(key: key("correct horse battery staple"))).close()
        let chain = AuditChain(key: key("correct horse battery staple"))
        let report = AuditVerifier(chain: chain).verify(bytes: readBytes(path), head: headState(path, chain: chain))
        #expect(report.isIntact)
        #expect(report.algorithm == "HMAC-SHA-256")
    }

    @Test func changedKey_isWrongKey() throws {
        let path = directory.file("keyed.jsonl")
        try writeLog(path, count: 5, chain: AuditChain(key: key("an attacker's own key 123"))).close()
        let problem = AuditVerifier(chain: AuditChain(key: key("correct horse battery staple")))
            .verify(bytes: readBytes(path)).problem
        #expect(problem?.kind == .wrongKey)
        #expect(problem?.line == 1)
    }

    @Test func keyedLog_withoutKey_saysToPassIt() throws {
        let path = directory.file("keyed.jsonl")
        try writeLog(path, count: 3, chain: AuditChain(key: key("correct horse battery staple"))).close()
        let problem = AuditVerifier().verify(bytes: readBytes(path)).problem
        #expect(problem?.kind == .wrongKey)
        #expect(problem?.detail.contains("--key-file") == true)
    }

    @Test func rehashedRecord_inKeyedLog_isModified() throws {
        let path = directory.file("keyed.jsonl")
        let chain = AuditChain(key: key("correct horse battery staple"))
        try writeLog(path, count: 5, chain: chain).close()
        var parts = lines(of: readBytes(path))
        let record = AuditRecord(line: 3, bytes: parts[2][...])!
        let body = Array(String(decoding: record.body, as: UTF8.self).replacing("MRN-1002", with: "MRN-1").utf8)
        parts[2] = Array(
            AuditRecord.line(body: body, hash: AuditChain().hash(prev: record.prev, body: body)).dropLast()
        )
        let problem = AuditVerifier(chain: chain).verify(bytes: joinLines(parts)).problem
        #expect(problem?.kind == .modified)
        #expect(problem?.line == 3)
    }
}
