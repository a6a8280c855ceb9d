import Crypto
import Glibc
import Synchronization
import Testing
import WardPluginAPI

@testable import AuditLog

/// The exact bytes a record is written as, pinned: the chain hashes them, so a writer that
/// builds them another way (for speed) must write the very same bytes, or every keyed log and
/// every `ward audit verify` of an older log would break.
@Suite struct AuditRecordBytesTests {
    static let prev = String(repeating: "ab", count: 32)
    static let body =
        #"{"seq":7,"ver":1,"ts":"2026-11-22T09:41:07.123Z","host":"ward1","pid":4242,"session":"3f9c","#
        + #""user":"demo","role":"clinician","source":"tty","kind":"access","action":"list","#
        + #""mrn":"W0\"1\\\u2028\u001b\n","outcome":"ok","prev":""# + prev + #""}"#
    /// The same record as Ward wrote it before records carried `ver`.
    static let versionZeroBody =
        #"{"seq":7,"ts":"2026-11-22T09:41:07.123Z","host":"ward1","pid":4242,"session":"3f9c","user":"demo","#
        + #""role":"clinician","source":"tty","kind":"access","action":"list","mrn":"W0\"1\\\u2028\u001b\n","#
        + #""outcome":"ok","prev":""# + prev + #""}"#

    @Test func body_isPinned() {
        let entry = AuditEntry.access(RecordAccess(.listed, record: "W0\"1\\\u{2028}\u{1B}\n", outcome: .ok))
        let bytes = Self.newBody(
            seq: 7,
            milliseconds: 1_795_340_467_123,
            host: "ward1",
            pid: 4242,
            session: AuditRecord.SessionFields(id: "3f9c", user: "demo", role: "clinician"),
            source: "tty",
            entry: entry,
            prev: Self.prev
        )
        #expect(String(decoding: bytes, as: UTF8.self) == Self.body)
    }

    @Test func nullsAndIntegers_arePinned() {
        let bytes = Self.newBody(
            seq: 1,
            milliseconds: 0,
            host: "h",
            pid: 1,
            session: AuditRecord.SessionFields(id: "s", user: nil, role: nil),
            source: nil,
            entry: .resume(away: .milliseconds(-5)),
            prev: AuditChain.genesis
        )
        #expect(
            String(decoding: bytes, as: UTF8.self)
                == #"{"seq":1,"ver":1,"ts":"1970-01-01T00:00:00.000Z","host":"h","pid":1,"session":"s","user":null,"#
                + #""role":null,"source":null,"kind":"resume","away_ms":-5,"prev":""# + AuditChain.genesis + #""}"#
        )
    }

    @Test func hashes_arePinned() {
        let body = Array(Self.body.utf8)
        #expect(
            AuditChain().hash(prev: Self.prev, body: body)
                == "ead36e1fa78b9eb7e524542c23974e4001c60fd1b62432f6aecfd393f81a456f"
        )
        let keyed = AuditChain(key: SymmetricKey(data: Array(repeating: UInt8(ascii: "k"), count: 32)))
        #expect(
            keyed.hash(prev: Self.prev, body: body)
                == "80f45feba2c5aeb1834844a0826f9299e71068eb1ae48a5707165c3a9d735c1f"
        )
        // A record written before `ver` hashes as it always did.
        let old = Array(Self.versionZeroBody.utf8)
        #expect(
            AuditChain().hash(prev: Self.prev, body: old)
                == "d57a257e48da26caed219e542375f2bf81e9f99ea760affccbbc61c1f412f52c"
        )
        #expect(
            keyed.hash(prev: Self.prev, body: old)
                == "5211270143fb714d366f935bfcf0ac430f1fc707915f362b8e12121da981fd1b"
        )
    }

    /// A log written before records carried `ver`, continued by this Ward: both kinds of record
    /// in one chain, which verifies whole; the old ones read as version 0.
    @Test func aLogOfRecordsWithoutVer_continuedWithVer_verifies() throws {
        let directory = TempDirectory()
        let path = directory.file("audit.jsonl")
        let chain = AuditChain()
        var old: [UInt8] = []
        var prev = AuditChain.genesis
        for seq in 1...2 {
            let body = Array(
                (#"{"seq":\#(seq),"ts":"2026-11-22T09:41:07.123Z","host":"h","pid":1,"session":"s","user":"demo","#
                    + #""role":"clinician","source":"tty","kind":"command","command":"find","prev":""# + prev + #""}"#)
                    .utf8
            )
            prev = chain.hash(prev: prev, body: body)
            old += AuditRecord.line(body: body, hash: prev)
        }
        let fd = creat(path, 0o600)
        try #require(fd >= 0)
        #expect(write(fd, old, old.count) == old.count)
        close(fd)
        let writer = try AuditWriter(path: path, policy: .never, clock: { 1_795_340_467_123 })
        let session = AuditRecord.SessionFields(id: "s", user: "demo", role: "clinician")
        try writer.append([.command(LineSummary(command: "open"))], session: session, source: "tty")
        writer.close()
        let records = lines(of: readBytes(path)).enumerated().compactMap { AuditRecord(line: $0 + 1, bytes: $1[...]) }
        #expect(records.map(\.seq) == [1, 2, 3])
        #expect(records.map(\.version) == [0, 0, AuditRecord.version])
        #expect(records[2].object.integer("ver") == 1)
        let report = AuditVerifier(chain: chain).verify(bytes: readBytes(path), head: headState(path))
        #expect(report.isIntact && report.records == 3)
    }

    /// A group as `append` writes it, byte for byte: each line its body with `,"hash":"…"}`
    /// before the newline, each hash over the previous hash and the body.
    @Test func writtenGroup_isPinned() throws {
        let directory = TempDirectory()
        let path = directory.file("audit.jsonl")
        let writer = try AuditWriter(path: path, policy: .never, clock: { 1_795_340_467_123 })
        let session = AuditRecord.SessionFields(id: "3f9c", user: "demo", role: "clinician")
        try writer.append(
            [
                .command(LineSummary(command: "find")),
                .access(RecordAccess(.listed, record: "W0\"1\\\u{2028}\u{1B}\n", outcome: .ok)),
                .access(RecordAccess(.read, record: "W2", detail: "notes", outcome: .failed)),
            ],
            session: session,
            source: "tty"
        )
        writer.close()
        var name = [CChar](repeating: 0, count: 256)
        _ = gethostname(&name, 255)
        let host = name.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        let envelope = { (seq: Int) in
            #"{"seq":\#(seq),"ver":1,"ts":"2026-11-22T09:41:07.123Z","host":"\#(host)","pid":\#(getpid()),"#
                + #""session":"3f9c","user":"demo","role":"clinician","source":"tty","#
        }
        let bodies = [
            envelope(1) + #""kind":"command","command":"find","prev":""#,
            envelope(2) + #""kind":"access","action":"list","mrn":"W0\"1\\\u2028\u001b\n","outcome":"ok","prev":""#,
            envelope(3) + #""kind":"access","action":"read","mrn":"W2","section":"notes","outcome":"failed","prev":""#,
        ]
        var expected = ""
        var prev = AuditChain.genesis
        for body in bodies {
            let full = body + prev + #""}"#
            var digest = SHA256()
            digest.update(data: Array((prev + full).utf8))
            let hash = digest.finalize().map { String(format02x: $0) }.joined()
            expected += body + prev + #"","hash":""# + hash + "\"}\n"
            prev = hash
        }
        #expect(readText(path) == expected)
        #expect(headState(path) == .present(AuditHead(seq: 3, hash: prev)))
    }

    /// A group's records are written at one time, so they carry one `ts`, read from the clock
    /// once; an entry that names its own user keeps it beside the session's.
    @Test func aGroupsRecords_shareTheirTime_andAnEntrysOwnUser_staysItsOwn() throws {
        let directory = TempDirectory()
        let path = directory.file("audit.jsonl")
        let ticks = Mutex<Int64>(1_795_340_467_000)
        let writer = try AuditWriter(path: path, policy: .never) {
            ticks.withLock { now in
                now += 1
                return now
            }
        }
        let session = AuditRecord.SessionFields(id: "3f9c", user: "demo", role: "clinician")
        try writer.append(
            [.signOnFailed(user: "mallory", reason: .wrongPassword), .command(LineSummary(command: "find"))],
            session: session,
            source: "tty"
        )
        try writer.append(.command(LineSummary(command: "open")), session: session, source: "tty")
        writer.close()
        let records = lines(of: readBytes(path)).compactMap { AuditRecord(line: 1, bytes: $0[...]) }
        let first = "2026-11-22T09:41:07.001Z"
        #expect(records.map(\.timestamp) == [first, first, "2026-11-22T09:41:07.002Z"])
        #expect(records.map(\.user) == ["mallory", "demo", "demo"])
    }

    /// The timestamp's digits, computed without `gmtime_r`, against `gmtime_r` itself.
    @Test func timestamps_matchTheCLibrary() {
        func reference(_ milliseconds: Int64) -> String {
            var seconds = time_t(milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000)
            let ms = Int(milliseconds - Int64(seconds) * 1000)
            var parts = tm()
            gmtime_r(&seconds, &parts)
            func pad(_ n: Int32, _ width: Int) -> String {
                let text = String(max(0, n))
                return String(repeating: "0", count: max(0, width - text.count)) + text
            }
            return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
                + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2)).\(pad(Int32(ms), 3))Z"
        }
        var samples: [Int64] = [
            0, 999, 1000, -1, -1000, -86_400_000, 951_782_400_000, 951_868_799_999, 4_107_542_400_000,
            253_402_300_799_999, 253_402_300_800_000, 1_795_340_467_123,
        ]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            samples.append(Int64.random(in: -2_000_000_000_000...300_000_000_000_000, using: &generator))
        }
        for sample in samples {
            #expect(UTCTimestamp.format(milliseconds: sample) == reference(sample), "for \(sample)")
        }
    }
}

extension String {
    fileprivate init(format02x byte: UInt8) {
        let digits = Array("0123456789abcdef")
        self = String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
    }
}

extension AuditRecordBytesTests {
    /// A new record's body, as the writer appends it.
    static func newBody(
        seq: Int64,
        milliseconds: Int64,
        host: String,
        pid: Int32,
        session: AuditRecord.SessionFields,
        source: String?,
        entry: AuditEntry,
        prev: String
    ) -> [UInt8] {
        var out: [UInt8] = []
        let envelope = AuditRecord.Envelope(
            milliseconds: milliseconds,
            host: host,
            pid: pid,
            session: session,
            source: source
        )
        AuditRecord.appendBody(seq: seq, envelope: envelope, entry: entry, prev: prev, to: &out)
        return out
    }
}
