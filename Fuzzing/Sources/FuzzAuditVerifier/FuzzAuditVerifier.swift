// The audit log verifier: any bytes as an audit log, with or without a head file.
// Entry point: `AuditVerifier().verify(bytes:head:)`, what `ward audit verify` runs once it has
// read the log and its head.
//
// Random bytes almost never carry a right SHA-256, so the verifier would stop at the first
// record. Unless the first byte is even, each line that reads as a record gets its true hash
// written in before verifying, so the fuzzer reaches the chain's rules (sequence, prev, torn
// lines, insertions, the head). Bits 1–2 of the first byte choose the head: none, unreadable,
// one naming the last record, or one naming seq 0–255 (the second byte).
import AuditLog

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAuditVerifier(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: start, count: count))
    guard let mode = input.first else { return 0 }
    let chain = AuditChain()
    var log = Array(input.dropFirst(mode & 0b110 == 0b110 ? 2 : 1))
    var last: AuditHead?
    if mode & 1 == 1 {
        var fixed: [UInt8] = []
        var lineNumber = 1
        for piece in log.split(separator: 0x0A, omittingEmptySubsequences: false) {
            if lineNumber > 1 { fixed.append(0x0A) }
            if let record = AuditRecord(line: lineNumber, bytes: piece) {
                let hash = chain.hash(prev: record.prev, body: record.body)
                var line = AuditRecord.line(body: record.body, hash: hash)
                line.removeLast()  // its newline; the split's own separators are kept
                fixed.append(contentsOf: line)
                last = AuditHead(seq: record.seq, hash: hash)
            } else {
                fixed.append(contentsOf: piece)
            }
            lineNumber += 1
        }
        log = fixed
    }
    let head: AuditVerifier.HeadState =
        switch (mode >> 1) & 0b11 {
        case 0: .absent
        case 1: .unreadable
        case 2: last.map { .present($0) } ?? .absent
        default: .present(AuditHead(seq: Int64(input.count > 1 ? input[1] : 0), hash: AuditChain.genesis))
        }
    let report = AuditVerifier(chain: chain).verify(bytes: log, head: head)
    _ = report.summary
    _ = report.problem?.description
    return 0
}
