// The terminal sanitizer's cost (issue 12 §1): it runs on every line Ward prints, so its fast
// path must be cheap, and its worst case linear.
//
//   Benchmarks/Sanitizer/run.sh          builds this file with Sanitizer.swift (swiftc -O), runs it
//
// Prints the median of 15 runs for: an 80-column table line (the common case, nothing to
// escape), a short hostile field, and 2 MiB and 4 MiB of clean ASCII, of clean text with many
// non-ASCII characters that share lead bytes with escaped ones (— … ‘ ’ “ ”), of text made only
// of payloads, and of compact JSON; the 4 MiB/2 MiB ratio shows linear time (≈2). (Not 1 MiB:
// it fits in the cache and makes the next size look worse than linear.)
import Glibc

func now() -> UInt64 {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return UInt64(t.tv_sec) * 1_000_000_000 + UInt64(t.tv_nsec)
}

func median(_ runs: Int = 15, _ body: () -> Int) -> Double {
    var times: [UInt64] = []
    var sink = 0
    for _ in 0..<runs {
        let start = now()
        sink &+= body()
        times.append(now() - start)
    }
    if sink == -1 { print("") }
    return Double(times.sorted()[runs / 2])
}

func text(_ unit: String, bytes: Int) -> String {
    String(repeating: unit, count: bytes / unit.utf8.count)
}

func report(_ label: String, _ unit: String, _ f: @escaping (String) -> String) {
    let two = text(unit, bytes: 2 << 20)
    let four = text(unit, bytes: 4 << 20)
    let t2 = median { f(two).utf8.count }
    let t4 = median { f(four).utf8.count }
    let pad = String(repeating: " ", count: max(0, 34 - label.count))
    print(
        "\(label)\(pad) 2 MiB: \(String(format1: t2 / 1e6)) ms   4 MiB: \(String(format1: t4 / 1e6)) ms   "
            + "per MiB: \(String(format1: t4 / 4e6)) ms   ratio \(String(format1: t4 / t2))")
}

extension String {
    init(format1 value: Double) {
        let scaled = Int((value * 100).rounded())
        let fraction = String(scaled % 100)
        self = "\(scaled / 100).\(String(repeating: "0", count: 2 - fraction.count))\(fraction)"
    }
}

let line = "W0000011  Alvarez, Brandon        1961-07-14  M  12 Oak St, Springfield, MA 01103   "
let perLine = median(15) {
    var total = 0
    for _ in 0..<100_000 { total &+= Sanitizer.line(line).utf8.count }
    return total
} / 100_000
print("80-column table line, nothing to escape: \(String(format1: perLine)) ns per line")
let hostile = "Mal\u{1B}]0;title\u{07}\u{1B}[2J\u{9B}31m\u{202E}rtl x"
let perHostile = median(15) {
    var total = 0
    for _ in 0..<100_000 { total &+= Sanitizer.line(hostile).utf8.count }
    return total
} / 100_000
print("short hostile field (\(hostile.utf8.count) bytes): \(String(format1: perHostile)) ns per field")
report("clean ASCII", "Lovelace, Ada 1815-12-10 London. ") { Sanitizer.line($0) }
report("clean UTF-8 (— … ‘ ’ “ ” é 患)", "Zoë — “stable” … ‘ok’ 患者 ") {
    Sanitizer.line($0)
}
report("payloads only", "\u{1B}[2J\u{07}\r\u{08}\u{9B}\u{202E}\u{2066}\u{0}") { Sanitizer.line($0) }
report("JSON, clean", #"{"name":"Ada Lovelace","mrn":"W1"},"#) { Sanitizer.json($0) }
report("JSON, C1 and bidi", "{\"n\":\"\u{9B}\u{202E}\u{85}\u{7F}x\"},") { Sanitizer.json($0) }
