import AuditLog
import Testing
import WardCore

/// `ward audit show`'s filters and table, on records written by a real `AuditWriter`.
@Suite struct AuditFilterTests {
    let directory = TempDirectory()
    var path: String { directory.file("audit.jsonl") }
    let admin = AuditEntry.UnixUser(name: "root", uid: 0)

    /// One record of each: an allowed open, a denied read, a failed open, a refused line, a
    /// sign-on, a failed sign-on, a user added, a failed import.
    private func writeRecords() throws -> [AuditRecord] {
        let writer = try AuditWriter(path: path, clock: steppingClock())
        let alice = AuditRecord.SessionFields(id: "s-1", user: "alice", role: "clerk")
        let nobody = AuditRecord.SessionFields(id: "s-2", user: nil, role: nil)
        try writer.append(.access(RecordAccess(.opened, record: "W1", outcome: .ok)), session: alice, source: "tty")
        try writer.append(
            .access(RecordAccess(.read, record: "W1", detail: "labs", outcome: .denied)),
            session: alice,
            source: "tty"
        )
        try writer.append(.access(RecordAccess(.opened, record: "W9", outcome: .failed)), session: alice, source: "tty")
        try writer.append(.denied(LineSummary(command: "note"), reason: "no"), session: alice, source: "tty")
        try writer.append(.signOn(source: .terminal(tty: "/dev/pts/1")), session: alice, source: nil)
        try writer.append(.signOnFailed(user: nil, reason: .unknownUser), session: nobody, source: nil)
        try writer.append(
            .account(.userAdd, target: "bob", role: .clinician, by: admin, status: .success),
            session: nobody,
            source: nil
        )
        let counts = AuditEntry.ImportCounts(files: 2, bundles: 1, patients: 1, resources: 40, failures: 1)
        try writer.append(
            .importBundles(path: "/data/in", counts: counts, by: admin, status: .dataError),
            session: nobody,
            source: nil
        )
        writer.close()
        return lines(of: readBytes(path)).enumerated().compactMap { AuditRecord(line: $0 + 1, bytes: $1[...]) }
    }

    private func seqs(_ filter: AuditFilter, _ records: [AuditRecord]) -> [Int64] {
        records.filter(filter.matches).map(\.seq)
    }

    @Test func outcome_matchesTheOutcomeField_andRefusalsWithoutOneAsDenied() throws {
        let rs = try writeRecords()
        #expect(seqs(AuditFilter(outcomes: [.ok]), rs) == [1, 7])
        #expect(seqs(AuditFilter(outcomes: [.denied]), rs) == [2, 4, 6])
        #expect(seqs(AuditFilter(outcomes: [.failed]), rs) == [3, 8])
    }

    @Test func kinds_andOutcome_combine() throws {
        let rs = try writeRecords()
        #expect(seqs(AuditFilter(outcomes: [.denied], kinds: [.access]), rs) == [2])
        #expect(seqs(AuditFilter(kinds: [.signOn, .signOnFailed]), rs) == [5, 6])
    }

    @Test func user_matchesTheSignedOnUser_orTheTargetOfAnAdministrativeCommand() throws {
        let rs = try writeRecords()
        #expect(seqs(AuditFilter(user: "bob"), rs) == [7])
        #expect(seqs(AuditFilter(user: "alice"), rs) == [1, 2, 3, 4, 5])
    }

    @Test func kindNames_mayBeRepeatedOrCommaSeparated_andAnUnknownOneIsNamed() throws {
        #expect(try AuditFilter.kinds(["access,sign-on", "user-add"]) == [.access, .signOn, .userAdd])
        #expect(throws: AuditFilter.UnknownKind(value: "acess")) { try AuditFilter.kinds(["sign-on,acess"]) }
        #expect(throws: AuditFilter.UnknownKind(value: "")) { try AuditFilter.kinds(["access,"]) }
    }

    @Test func theTable_hasAnOutcomeColumn_andTheAdministrativeFieldsInDetail() throws {
        let rs = try writeRecords()
        let rows = tableText(rs).split(separator: "\n").map { $0.split(separator: " ").joined(separator: " ") }
        #expect(rows[0].hasSuffix("EVENT OUTCOME DETAIL"))
        #expect(rows[2].hasSuffix("access denied action=read mrn=W1 section=labs"))
        #expect(rows[5].hasSuffix("sign-on - via=terminal tty=/dev/pts/1"))
        #expect(rows[6].hasSuffix("sign-on-failed denied reason=unknown-user"))
        #expect(rows[7].hasSuffix("user-add ok unix_user=root uid=0 target=bob target_role=clinician"))
        #expect(
            rows[8].hasSuffix(
                "import failed unix_user=root uid=0 path=/data/in files=2 bundles=1 exports=0 exports_imported=0 patients=1 resources=40 failures=1 status=65"
            )
        )
    }

    @Test func administrativeRecords_writeTheirFieldsInOrder() throws {
        _ = try writeRecords()
        let text = readText(path)
        #expect(
            text.contains(
                #""kind":"user-add","unix_user":"root","uid":0,"target":"bob","target_role":"clinician","outcome":"ok","prev":"#
            )
        )
        #expect(
            text.contains(
                #""kind":"import","unix_user":"root","uid":0,"path":"/data/in","files":2,"bundles":1,"exports":0,"exports_imported":0,"patients":1,"#
                    + #""resources":40,"failures":1,"outcome":"failed","status":65,"prev":"#
            )
        )
        let demo = AuditEntry.demo(patients: 20, seed: 1, reused: true, by: admin, status: .success)
        #expect(demo.kind == .demo)
        #expect(demo.details.map(\.key) == ["unix_user", "uid", "patients", "seed", "records", "outcome"])
    }
}

/// Several values of one filter are alternatives; MRNs ignore case; actions pick accesses.
@Suite struct AuditFilterAlternativesTests {
    let directory = TempDirectory()

    @Test func severalUsers_orTheirValues_andActionsPickWhatWasDone() throws {
        let path = directory.file("audit.jsonl")
        let writer = try AuditWriter(path: path, clock: steppingClock())
        let alice = AuditRecord.SessionFields(id: "s-1", user: "alice", role: "clinician")
        let audrey = AuditRecord.SessionFields(id: "s-2", user: "audrey", role: "auditor")
        try writer.append(.access(RecordAccess(.listed, record: "MRN-A", outcome: .ok)), session: alice, source: "tty")
        try writer.append(.access(RecordAccess(.opened, record: "MRN-A", outcome: .ok)), session: alice, source: "tty")
        try writer.append(
            .access(RecordAccess(.read, record: "mrn-a", detail: "labs", outcome: .ok)),
            session: audrey,
            source: "tty"
        )
        try writer.append(.access(RecordAccess(.opened, record: "MRN-B", outcome: .ok)), session: audrey, source: "tty")
        writer.close()
        let rs = lines(of: readBytes(path)).enumerated().compactMap { AuditRecord(line: $0 + 1, bytes: $1[...]) }
        func seqs(_ filter: AuditFilter) -> [Int64] { rs.filter(filter.matches).map(\.seq) }
        #expect(seqs(AuditFilter(users: ["alice", "audrey"])) == [1, 2, 3, 4])
        #expect(seqs(AuditFilter(mrns: ["mrn-a"])) == [1, 2, 3])
        #expect(seqs(AuditFilter(actions: ["open"])) == [2, 4])
        #expect(seqs(AuditFilter(users: ["audrey"], mrns: ["MRN-A"], actions: ["open", "read"])) == [3])
    }
}
