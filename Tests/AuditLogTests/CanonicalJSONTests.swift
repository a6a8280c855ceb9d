import AuditLog
import Testing

@Suite struct CanonicalJSONTests {
    @Test func writesKeysInTheOrderGiven() {
        let bytes = CanonicalJSON.object([("seq", .integer(3)), ("a", .string("x")), ("b", .null)])
        #expect(String(decoding: bytes, as: UTF8.self) == #"{"seq":3,"a":"x","b":null}"#)
    }

    @Test func escapesQuotesBackslashesAndControlCharacters() {
        let text = "a\"b\\c\nd\re\tf\u{1B}[2Jg\u{7F}h\u{2028}i é"
        let bytes = CanonicalJSON.object([("k", .string(text))])
        #expect(
            String(decoding: bytes, as: UTF8.self)
                == #"{"k":"a\"b\\c\nd\re\tf\u001b[2Jg\u007fh\u2028i é"}"#
        )
        #expect(!bytes.contains(0x0A))
        #expect(!bytes.contains(0x1B))
    }

    /// The escaper works on bytes for speed; it must write what a scalar-by-scalar one writes
    /// (this one), since the chain hashes these bytes: a change would break every keyed log.
    @Test func bytewiseEscaping_matchesTheScalarDefinition() {
        func reference(_ string: String) -> [UInt8] {
            var out: [UInt8] = [0x22]
            for scalar in string.unicodeScalars {
                switch scalar.value {
                case 0x22: out += [0x5C, 0x22]
                case 0x5C: out += [0x5C, 0x5C]
                case 0x0A: out += Array("\\n".utf8)
                case 0x0D: out += Array("\\r".utf8)
                case 0x09: out += Array("\\t".utf8)
                case 0x00..<0x20, 0x7F, 0x2028, 0x2029:
                    let hex = String(scalar.value, radix: 16)
                    out += Array(("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).utf8)
                default: out += Array(String(scalar).utf8)
                }
            }
            return out + [0x22]
        }
        let samples = [
            "", "plain", "\u{2028}", "\u{2029}", "a\u{2029}", "\u{2026}\u{2027}\u{202A}…", "\u{E000}\u{1F600}",
            "end\u{2028}", "\u{0}\u{1F}\u{7F}\u{80}\u{9F}", "é\"\\\n\r\t", String(repeating: "ab\u{2028}", count: 50),
            "Ünïcödé \u{10FFFF} \u{FEFF}",
        ]
        for sample in samples {
            var out: [UInt8] = []
            CanonicalJSON.appendString(sample, to: &out)
            #expect(out == reference(sample), "for \(sample.debugDescription)")
        }
    }

    @Test func readsBackWhatItWrites() throws {
        let fields: [(key: String, value: CanonicalJSON.Value)] = [
            ("s", .string("tab\there \u{1}\u{10FFFF} \"q\"")), ("n", .integer(-42)), ("z", .null),
        ]
        let object = try #require(FlatJSONObject(CanonicalJSON.object(fields)))
        #expect(object.string("s") == "tab\there \u{1}\u{10FFFF} \"q\"")
        #expect(object.integer("n") == -42)
        #expect(object["z"] == .null)
        #expect(object.fields.map(\.key) == ["s", "n", "z"])
    }

    @Test func refusesNestedValuesDuplicatesAndTrailingBytes() {
        #expect(FlatJSONObject(Array(#"{"a":{"b":1}}"#.utf8)) == nil)
        #expect(FlatJSONObject(Array(#"{"a":1,"a":2}"#.utf8)) == nil)
        #expect(FlatJSONObject(Array(#"{"a":1} x"#.utf8)) == nil)
        #expect(FlatJSONObject(Array(#"{"a":1.5}"#.utf8)) == nil)
        #expect(FlatJSONObject(Array(#"{"a":"#.utf8)) == nil)
    }

    @Test func timestampsAreUTCWithMilliseconds() {
        #expect(UTCTimestamp.format(milliseconds: 1_795_305_600_123) == "2026-11-22T00:00:00.123Z")
        #expect(UTCTimestamp.format(milliseconds: 0) == "1970-01-01T00:00:00.000Z")
        #expect(UTCTimestamp.parse("2026-11-22") == 1_795_305_600_000)
        #expect(UTCTimestamp.parse("2026-11-22T00:00:00.123Z") == 1_795_305_600_123)
        #expect(UTCTimestamp.parse("2026-11-22 00:01") == 1_795_305_660_000)
        #expect(UTCTimestamp.parse("yesterday") == nil)
    }
}
