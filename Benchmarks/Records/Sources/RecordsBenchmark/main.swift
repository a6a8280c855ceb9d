// records-benchmark: makes (or reuses) a demo home, then times the two queries the shell runs
// most, through the same `RecordStore` API the shell uses, and reports median, p99 and the
// process's peak resident memory (VmHWM in /proc/self/status).
import Foundation
import Glibc
import WardRecords

func option(_ name: String) -> String? {
    let arguments = CommandLine.arguments
    guard let at = arguments.firstIndex(of: name), at + 1 < arguments.count else { return nil }
    return arguments[at + 1]
}

func now() -> UInt64 {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
}

func status(_ field: String) -> String {
    let text = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    return text.split(separator: "\n").first { $0.hasPrefix(field + ":") }
        .map { $0.dropFirst(field.count + 1).trimmingCharacters(in: .whitespaces) } ?? "?"
}

func report(_ name: String, _ samples: [UInt64]) {
    let sorted = samples.sorted()
    func at(_ q: Double) -> Double { Double(sorted[min(sorted.count - 1, Int(q * Double(sorted.count)))]) / 1e6 }
    print(
        String(
            format: "%-28@ n=%5d  median %.3f ms  p90 %.3f ms  p99 %.3f ms  max %.3f ms", name as NSString,
            sorted.count, at(0.5), at(0.9), at(0.99), Double(sorted.last!) / 1e6))
}

let home = option("--home") ?? "/tmp/ward-records-bench"
let patients = Int(option("--patients") ?? "1000000")!
let iterations = Int(option("--iterations") ?? "2000")!
try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
let file = (home as NSString).appendingPathComponent(SQLiteRecordStore.fileName)

if !FileManager.default.fileExists(atPath: file) {
    let start = now()
    try DemoGenerator(seed: 1, patients: patients).write(home: home) { done, total in
        if done % 100_000 == 0 || done == total {
            FileHandle.standardError.write(
                "generated \(done)/\(total) in \(String(format: "%.1f", Double(now() - start) / 1e9)) s\n".data(using: .utf8)!)
        }
    }
    let size = (try FileManager.default.attributesOfItem(atPath: file)[.size] as? NSNumber)?.int64Value ?? 0
    print(
        String(
            format: "generate %d patients: %.1f s, %.0f MB on disk", patients, Double(now() - start) / 1e9,
            Double(size) / 1e6))
    print("peak RSS of generation: \(status("VmHWM")) (not the figure below: this run re-execs to measure queries)")
    // Measure queries in a fresh process, so generation's memory does not count.
    let process = Process()
    process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    process.arguments = Array(CommandLine.arguments.dropFirst())
    try process.run()
    process.waitUntilExit()
    exit(process.terminationStatus)
}

let store = try SQLiteRecordStore(home: home)
print("after open: VmRSS \(status("VmRSS")), VmHWM \(status("VmHWM"))")

// Charts with 100+ observations: sample MRNs, keep those whose chart is that big.
var rng = SystemRandomNumberGenerator()
var heavy: [String] = []
let total = try store.demoMarker()?.patients ?? patients
var sampled = 0
while heavy.count < 200, sampled < 50_000 {
    sampled += 1
    let mrn = DemoGenerator.mrn(index: Int.random(in: 0..<total, using: &rng))
    let chart = try store.chart(mrn: mrn)
    if chart.observations.count >= 100 { heavy.append(mrn) }
    chart.wipe()
}
let sizes = try heavy.map { try store.chart(mrn: $0).observations.count }
print("charts with 100+ observations: \(heavy.count) of \(sampled) sampled; observations per chart \(sizes.min() ?? 0)...\(sizes.max() ?? 0), median \(sizes.sorted()[sizes.count / 2])")
store.releaseMemory()

let prefixes = [
    "smi", "joh", "wil", "bro", "gar", "mil", "dav", "rod", "mar", "her", "lop", "gon", "and", "tho", "tay",
    "moo", "jac", "lee", "per", "whi", "har", "san", "cla", "ram", "lew", "rob", "wal", "you", "all", "kin",
]
let twoWords = ["mar smi", "joh wil", "jen bro", "jam gar", "lin dav", "rob mil", "eli tho", "dav lee"]

// Warm up (statement cache, OS file cache), then measure.
for query in prefixes { _ = try store.find(query) }
for mrn in heavy.prefix(20) { _ = try store.chart(mrn: mrn) }

var findPrefix: [UInt64] = []
var findTwo: [UInt64] = []
var open: [UInt64] = []
var matches = 0
for i in 0..<iterations {
    var start = now()
    matches += try store.find(prefixes[i % prefixes.count]).matches.count
    findPrefix.append(now() - start)
    start = now()
    matches += try store.find(twoWords[i % twoWords.count]).matches.count
    findTwo.append(now() - start)
    start = now()
    let chart = try store.chart(mrn: heavy[i % heavy.count])
    open.append(now() - start)
    chart.wipe()
}
print("patients: \(total); iterations: \(iterations); rows returned: \(matches)")
report("find 3-letter prefix", findPrefix)
report("find two prefixes", findTwo)
report("open (100+ observations)", open)
print("memory: VmRSS \(status("VmRSS")), peak VmHWM \(status("VmHWM"))")
store.close()
