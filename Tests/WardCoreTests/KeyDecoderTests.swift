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
        #expect(
            d.decode(Array("\u{1B}[Ox\u{1B}[I".utf8), at: t0) == [
                .focus(.lost), .key(KeyPress([120])), .focus(.gained),
            ]
        )
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

/// Pastes up to the line limit come whole, however many reads they take; a longer one
/// is refused once and dropped up to its end, and the keys after it still come.
@Suite struct KeyDecoderLongPasteTests {
    let t0 = Instant(nanoseconds: 1_000_000_000)

    @Test func aPasteOfAMebibyte_inManySmallReads_comesAsOneKey() {
        var d = KeyDecoder()
        let body = [UInt8](repeating: UInt8(ascii: "a"), count: Line.maximumLength - 1)
        let bytes = Array("\u{1B}[200~".utf8) + body + Array("\u{1B}[201~".utf8)
        var out: [KeyDecoder.Output] = []
        var i = 0
        while i < bytes.count {
            out += d.decode(bytes[i..<min(i + 4095, bytes.count)], at: t0)
            i += 4095
        }
        #expect(out == [.key(KeyPress(bytes, isPaste: true))])
        #expect(!d.isHolding)
    }

    @Test func aPasteLongerThanTheLimit_isRefusedOnce_andDropped_upToItsEnd() {
        var d = KeyDecoder()
        let body = [UInt8](repeating: UInt8(ascii: "b"), count: Line.maximumLength + 100)
        // The end marker is split across two reads.
        let bytes = Array("\u{1B}[200~".utf8) + body + Array("\u{1B}[201~x".utf8)
        var out: [KeyDecoder.Output] = []
        var i = 0
        let step = 65_533
        while i < bytes.count {
            out += d.decode(bytes[i..<min(i + step, bytes.count)], at: t0)
            i += step
        }
        #expect(out == [.pasteTooLong, .key(KeyPress([UInt8(ascii: "x")]))])
        #expect(!d.isHolding)
    }

    @Test func aRefusedPaste_whoseEndComesInItsOwnRead_isDroppedToo() {
        var d = KeyDecoder()
        let start = Array("\u{1B}[200~".utf8) + [UInt8](repeating: UInt8(ascii: "c"), count: KeyDecoder.maximumPaste)
        #expect(d.decode(start, at: t0) == [.pasteTooLong])
        #expect(d.decode(Array("cc\u{1B}[20".utf8), at: t0).isEmpty)
        #expect(d.decode(Array("1~ok".utf8), at: t0) == [.key(KeyPress([0x6F])), .key(KeyPress([0x6B]))])
    }
}
