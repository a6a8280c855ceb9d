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
