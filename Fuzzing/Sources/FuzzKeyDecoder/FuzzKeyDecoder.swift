// The terminal key decoder: any bytes, cut into reads of any size, with pauses between them.
// Entry points: `KeyDecoder.decode(_:at:)` and `KeyDecoder.flush(at:)`.
//
// The input is a script: a byte `n` gives the length of the next read (n % 16 + 1), those bytes
// follow, then a byte whose top bit says whether the escape timeout passes before the next read.
// Besides not trapping, the decoder must lose and invent nothing: every byte fed comes out once,
// in order, as a key, a paste or a focus report (unless a paste passes `Line.maximumLength` and is
// dropped, which inputs of libFuzzer's length limit cannot reach).
import WardCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzKeyDecoder(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: start, count: count))
    var decoder = KeyDecoder()
    var now = Instant(nanoseconds: 0)
    var fed: [UInt8] = []
    var out: [UInt8] = []
    var droppedAPaste = false

    func take(_ outputs: [KeyDecoder.Output]) {
        for output in outputs {
            switch output {
            case .key(let key): out.append(contentsOf: key.bytes)
            case .focus(.gained): out.append(contentsOf: "\u{1B}[I".utf8)
            case .focus(.lost): out.append(contentsOf: "\u{1B}[O".utf8)
            case .pasteTooLong: droppedAPaste = true
            }
        }
    }

    var i = 0
    while i < input.count {
        let length = Int(input[i] % 16) + 1
        i += 1
        let read = input[i..<min(i + length, input.count)]
        i += read.count
        fed.append(contentsOf: read)
        take(decoder.decode(read, at: now))
        if i < input.count {
            if input[i] & 0x80 != 0 { now = now + KeyDecoder.escapeTimeout + .milliseconds(1) }
            now = now + .milliseconds(1)
            i += 1
            take(decoder.flush(at: now))
        }
    }
    take(decoder.flush(at: now + .seconds(1)))
    if decoder.isHolding || (out != fed && !droppedAPaste) {
        fatalError("KeyDecoder lost or invented bytes: fed \(fed.count), got \(out.count)")
    }
    return 0
}
