import Testing
import WardCore

@Suite struct KeyDecoderTests {
    let t0 = Instant(nanoseconds: 0)

    func keys(_ outputs: [KeyDecoder.Output]) -> [[UInt8]] {
        outputs.compactMap { if case .key(let k) = $0 { k.bytes } else { nil } }
    }

    @Test func splitsPlainBytesIntoOneKeyEach() {
        var d = KeyDecoder()
        #expect(keys(d.decode(Array("ab".utf8), at: t0)) == [[97], [98]])
    }

    @Test func keepsAUTF8CharacterWhole_evenAcrossReads() {
        var d = KeyDecoder()
        let e = Array("é".utf8)
        #expect(d.decode([e[0]], at: t0).isEmpty)
        #expect(keys(d.decode([e[1]], at: t0)) == [e])
    }

    @Test func keepsAnEscapeSequenceWhole_evenAcrossReads() {
        var d = KeyDecoder()
        #expect(d.decode([0x1B], at: t0).isEmpty)
        #expect(d.decode(Array("[".utf8), at: t0).isEmpty)
        #expect(keys(d.decode(Array("A".utf8), at: t0)) == [Array("\u{1B}[A".utf8)])
        #expect(keys(d.decode(Array("\u{1B}[1;5C".utf8), at: t0)) == [Array("\u{1B}[1;5C".utf8)])
    }

    @Test func turnsFocusReportsIntoFocusEvents_neverKeys() {
        var d = KeyDecoder()
        #expect(d.decode(Array("\u{1B}[Ox\u{1B}[I".utf8), at: t0) == [
            .focus(.lost), .key(KeyPress([120])), .focus(.gained),
        ])
    }

    @Test func deliversABracketedPasteAsOneKey() {
        var d = KeyDecoder()
        let paste = "\u{1B}[200~find smith\nopen 1\u{1B}[201~"
        let bytes = Array(paste.utf8)
        #expect(d.decode(bytes[0..<10], at: t0).isEmpty)
        let out = d.decode(bytes[10...], at: t0)
        #expect(out == [.key(KeyPress(bytes, isPaste: true))])
    }

    @Test func holdsALoneEscape_thenFlushesItAfterTheTimeout() {
        var d = KeyDecoder()
        #expect(d.decode([0x1B], at: t0).isEmpty)
        #expect(d.pendingDeadline == t0 + KeyDecoder.escapeTimeout)
        #expect(d.flush(at: t0 + .milliseconds(10)).isEmpty)
        #expect(keys(d.flush(at: t0 + .milliseconds(30))) == [[0x1B]])
        #expect(d.pendingDeadline == nil)
    }

    @Test func metaKeys_areEscapePlusOneCharacter() {
        var d = KeyDecoder()
        #expect(keys(d.decode(Array("\u{1B}b".utf8), at: t0)) == [[0x1B, 98]])
    }

    @Test func wipe_forgetsHeldBytes() {
        var d = KeyDecoder()
        _ = d.decode(Array("\u{1B}[200~secret".utf8), at: t0)
        #expect(d.isHolding)
        d.wipe()
        #expect(!d.isHolding)
        #expect(d.pendingDeadline == nil)
    }
}
