import Foundation
import Testing

@testable import WardRecords

/// Reads `text` as one value through the streaming reader.
private func parse(_ text: String) throws -> JSONValue {
    let reader = JSONStreamReader(data: Data(text.utf8))
    let value = try reader.value()
    try reader.finish()
    return value
}

private func string(_ value: JSONValue) -> String? {
    if case .string(let text) = value { return text }
    return nil
}

@Test func jsonStreamReader_keepsANulEscape_insteadOfEndingTheString() throws {
    #expect(string(try parse(#""nul\u0000byte""#)) == "nul\u{0}byte")
}

@Test func jsonStreamReader_decodesEveryEscape_andSurrogatePairs() throws {
    #expect(string(try parse(#""\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00""#)) == "\"\\/\u{8}\u{C}\n\r\té😀")
    #expect(string(try parse("\"caf\u{E9} \u{202E}\"")) == "caf\u{E9} \u{202E}")
}

@Test func jsonStreamReader_readsNumbersLiteralsAndNesting() throws {
    guard case .object(let object) = try parse(#" {"a": [1, -2.5e3, 0.125, true, false, null], "b": {}} "#),
        case .array(let array)? = object["a"]
    else {
        Issue.record("expected an object holding an array")
        return
    }
    #expect(array.count == 6)
    if case .number(let number) = array[1] { #expect(number == -2500) } else { Issue.record("expected a number") }
    if case .number(let number) = array[2] { #expect(number == 0.125) } else { Issue.record("expected a number") }
    if case .bool(let flag) = array[3] { #expect(flag) } else { Issue.record("expected true") }
    if case .null = array[5] {} else { Issue.record("expected null") }
}

@Test func jsonStreamReader_refusesWhatStrictJSONRefuses() {
    let bad = [
        "", "{", "[1,]", #"{"a":1,}"#, "01", "1.", "-", "1e", "+1", "tru", "nul", #""a"#, "\"a\u{1}b\"",
        #""\x""#, #""\u12""#, #""\ud800""#, #""\udc00x""#, #""\ud800\u0041""#, "[1 2]", #"{"a" 1}"#, "{1:2}",
        #"{"a":1,"a":2}"#, "1 2", "// comment\n1", "'a'", "NaN",
    ]
    for text in bad {
        #expect(throws: FHIRProblem.self, "\(text.debugDescription)") { try parse(text) }
    }
}

@Test func jsonStreamReader_refusesInvalidUTF8() {
    var bytes = Array(#""ab"#.utf8)
    bytes += [0xC3, 0x28, UInt8(ascii: "\"")]
    let reader = JSONStreamReader(data: Data(bytes))
    #expect(throws: FHIRProblem.self) { try reader.value() }
}

@Test func jsonStreamReader_refusesNestingDeeperThanItsLimit_withoutExhaustingTheStack() {
    let depth = 100_000
    let text = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
    #expect(throws: FHIRProblem.self) { try parse(text) }
    let reader = JSONStreamReader(data: Data(text.utf8))
    #expect(throws: FHIRProblem.self) { try reader.skipValue() }
}

@Test func jsonStreamReader_readsStringsAndNumbersThatCrossAChunkBoundary() throws {
    // The reader's chunk is 1 MiB: put an escaped string and a number across the boundary, and a
    // string of the longest a free-text field may be across the next.
    let padding = String(repeating: " ", count: (1 << 20) - 7)
    let text = "[" + padding + #""ab\ncd\u00e9", 12345.5, "\#(String(repeating: "x", count: 1 << 20))"]"#
    guard case .array(let array) = try parse(text) else {
        Issue.record("expected an array")
        return
    }
    #expect(string(array[0]) == "ab\ncdé")
    if case .number(let number) = array[1] { #expect(number == 12345.5) } else { Issue.record("expected a number") }
    #expect(string(array[2])?.count == 1 << 20)
}

@Test func jsonStreamReader_namesTheByteWhereTheSyntaxBreaks() {
    do {
        _ = try parse(#"{"a": [1, 2 3]}"#)
        Issue.record("expected a syntax error")
    } catch let problem as FHIRProblem {
        #expect(problem.path == "(root)")
        #expect(problem.problem == "not valid JSON at byte 12: expected ',' or ']'")
    } catch {
        Issue.record("unexpected \(error)")
    }
}

@Test func jsonStreamReader_walksMembersOneAtATime_andSkipsTheRest() throws {
    let reader = JSONStreamReader(data: Data(#"{"skip": {"x": [1, {"y": "z"}]}, "keep": [10, 20]}"#.utf8))
    var kept: [Double] = []
    try reader.readObject { key in
        guard key == "keep" else { return try reader.skipValue() }
        try reader.readArray { _ in
            if case .number(let number) = try reader.value() { kept.append(number) }
        }
    }
    try reader.finish()
    #expect(kept == [10, 20])
}

@Test func jsonStreamReader_readsTheSameValue_whateverTheChunkSize() throws {
    let text = #"{"a": ["x\u00e9\ud83d\ude00\n", -12.5e-1, true, null, {"b": "café"}], "c": false, "d": "nul\u0000"}"#
    let expected = try JSONStreamReader(data: Data(text.utf8)).value()
    for chunk in 1...9 {
        let reader = JSONStreamReader(data: Data(text.utf8), chunkSize: chunk)
        #expect(try reader.value() == expected, "chunk \(chunk)")
        try reader.finish()
    }
}
