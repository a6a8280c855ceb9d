import AuditLog
import Glibc
import Testing
import WardCore

/// The byte searches `ward audit show` runs over every line before it parses one: found where a
/// plain scan finds them, whichever byte of the needle the search looks for first.
struct AuditLineSearchTests {
    static func contains(_ line: String, _ needle: String) -> Bool {
        Array(line.utf8).withUnsafeBytes { AuditLineSearch.contains($0, Array(needle.utf8)) }
    }

    @Test func contains_findsANeedleAnywhere_asAPlainScanDoes() {
        var generator = SystemRandomNumberGenerator()
        // Lines of the bytes records are made of, needles of the same: every place and overlap.
        let alphabet = Array(#""mrn:,0af{}"#.utf8)
        for _ in 0..<2000 {
            let line = (0..<Int.random(in: 0...40, using: &generator)).map { _ in
                alphabet.randomElement(using: &generator)!
            }
            let needle = (0..<Int.random(in: 1...5, using: &generator)).map { _ in
                alphabet.randomElement(using: &generator)!
            }
            let expected =
                line.count >= needle.count
                && (0...(line.count - needle.count)).contains {
                    Array(line[$0..<$0 + needle.count]) == needle
                }
            let found = line.withUnsafeBytes { AuditLineSearch.contains($0, needle) }
            #expect(found == expected, "\(line) \(needle)")
        }
    }

    @Test func contains_atTheStartAndTheEnd_andNotPastIt() {
        #expect(Self.contains(#""mrn":"W1","#, #""mrn":""#))
        #expect(Self.contains(#"x,"mrn":""#, #""mrn":""#))
        #expect(!Self.contains(#"x,"mrn":"#, #""mrn":""#))
        #expect(!Self.contains("", "m"))
        #expect(Self.contains("0123", "23"))  // no byte of its own: the first byte leads
    }

    @Test func hasField_matchesThePrefixOfAnyNamedKeysValue_ignoringCase() {
        let line = #"{"seq":3,"user":"demo","kind":"access","action":"open","mrn":"W0000011","outcome":"ok"}"#
        func has(_ prefix: String, keys: [String] = [#""mrn":""#, #""chart":""#]) -> Bool {
            Array(line.utf8).withUnsafeBytes {
                AuditLineSearch.hasField($0, keys: keys.map { Array($0.utf8) }, startingWith: [Array(prefix.utf8)])
            }
        }
        #expect(has("w0000011") && has("w00") && !has("w0000012") && !has("w00000111"))
        #expect(!has("w0000011", keys: [#""chart":""#]))
    }

    @Test func aLogFile_isReadWhole_recordsAndLinesThatAreNot() throws {
        let directory = TempDirectory()
        let path = directory.path + "/audit.jsonl"
        let writer = try AuditWriter(path: path, policy: .never)
        let session = AuditRecord.SessionFields(id: "s", user: "demo", role: "clinician")
        for index in 0..<300 {
            try writer.append(
                .access(RecordAccess(.opened, record: "W\(index)", outcome: .ok)),
                session: session,
                source: "tty"
            )
        }
        writer.close()
        let fd = open(path, O_WRONLY | O_APPEND)
        _ = "not a record\n".withCString { write(fd, $0, strlen($0)) }
        close(fd)
        let log = try AuditLogFile.read(path: path)
        #expect(log.records.count == 300 && log.unreadable == 1)
        #expect(log.records.map(\.record.seq) == Array(1...300))
        let one = try AuditLogFile.read(path: path) { line in
            AuditLineSearch.hasField(line, keys: [Array(#""mrn":""#.utf8)], startingWith: [Array("w299".utf8)])
        }
        #expect(one.records.map(\.record.mrn) == ["W299"] && one.unreadable == 0)
    }
}
