// records-benchmark: makes (or reuses) a demo home, then times what the shell's `find` and `open`
// run, through the same `SQLiteRecordStore` calls the shell makes: `find(text, limit: 20)` as
// `FindCommand` calls it, and `lookUp(mrn:)` then `chart(mrn:contents: .full)` as `OpenCommand`
// does for a clinician. Reports median, p90, p99 and max per operation, the process's resident
// memory (VmRSS now, VmHWM peak, from /proc/self/status), and whether each goal is met.
//
// Options: --home DIR (default /tmp/ward-records-bench), --patients N (for a new home; 1000000),
// --iterations N (2000), --limit N (20, FindCommand.limit), --only find|two|open (time one
// operation alone, for a profiler).
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

/// A field of /proc/self/status in kB (VmRSS, VmHWM), or nil.
func statusKB(_ field: String) -> Int? {
    let text = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }) else { return nil }
    return Int(line.dropFirst(field.count + 1).trimmingCharacters(in: .whitespaces).split(separator: " ")[0])
}

func megabytes(_ kB: Int?) -> String {
    kB.map { String(format: "%.1f MB", Double($0) / 1024) } ?? "?"
}

func padded(_ text: String, _ width: Int) -> String {
    text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
}

func milliseconds(_ nanoseconds: UInt64) -> Double { Double(nanoseconds) / 1e6 }

// Goals (issue 4): median under 2 ms, p99 under 5 ms, resident memory under 50 MB.
let medianGoal = 2.0
let p99Goal = 5.0
let memoryGoalMB = 50.0

/// Prints one operation's line; returns whether it met the time goals.
func report(_ name: String, _ samples: [UInt64]) -> Bool {
    let sorted = samples.sorted()
    func at(_ q: Double) -> Double { milliseconds(sorted[min(sorted.count - 1, Int(q * Double(sorted.count)))]) }
    let met = at(0.5) < medianGoal && at(0.99) < p99Goal
    print(
        padded(name, 34)
            + String(
                format: "%6d %9.3f %9.3f %9.3f %9.3f  ", sorted.count, at(0.5), at(0.9), at(0.99),
                milliseconds(sorted.last!)) + (met ? "met" : "MISSED"))
    return met
}

let home = option("--home") ?? "/tmp/ward-records-bench"
let patients = Int(option("--patients") ?? "1000000")!
let iterations = Int(option("--iterations") ?? "2000")!
let limit = Int(option("--limit") ?? "20")!
let only = option("--only")
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
    print("peak RSS of generation: \(megabytes(statusKB("VmHWM"))) (queries are measured in a new process)")
    // Measure queries in a fresh process, so generation's memory does not count.
    let process = Process()
    process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    process.arguments = Array(CommandLine.arguments.dropFirst())
    try process.run()
    process.waitUntilExit()
    exit(process.terminationStatus)
}

let store = try SQLiteRecordStore(home: home)
let total = try store.demoMarker()?.patients ?? patients
print("records benchmark: \(total) patients in \(file)")
print("after open: RSS \(megabytes(statusKB("VmRSS")))")

// Charts with 100+ observations: sample MRNs, keep those whose chart is that big.
var rng = SystemRandomNumberGenerator()
var heavy: [String] = []
var sizes: [Int] = []
var sampled = 0
while heavy.count < 200, sampled < 50_000 {
    sampled += 1
    let mrn = DemoGenerator.mrn(index: Int.random(in: 0..<total, using: &rng))
    let chart = try store.chart(mrn: mrn)
    if chart.observations.count >= 100 {
        heavy.append(mrn)
        sizes.append(chart.observations.count)
    }
    chart.wipe()
}
guard !heavy.isEmpty else {
    print("no chart with 100+ observations among \(sampled) sampled; use a bigger demo home")
    exit(1)
}
sizes.sort()
print(
    "charts with 100+ observations: \(heavy.count) of \(sampled) sampled; "
        + "observations per chart \(sizes.first!)...\(sizes.last!), median \(sizes[sizes.count / 2])")
store.releaseMemory()

let prefixes = [
    "smi", "joh", "wil", "bro", "gar", "mil", "dav", "rod", "mar", "her", "lop", "gon", "and", "tho", "tay",
    "moo", "jac", "lee", "per", "whi", "har", "san", "cla", "ram", "lew", "rob", "wal", "you", "all", "kin",
]
let twoWords = ["mar smi", "joh wil", "jen bro", "jam gar", "lin dav", "rob mil", "eli tho", "dav lee"]

/// What `open MRN` runs for a clinician: the find row (the restricted check), then the chart.
func open(_ mrn: String, in store: SQLiteRecordStore) throws {
    guard let match = try store.lookUp(mrn: mrn) else { throw StoreError.noSuchPatient }
    try store.chart(mrn: match.mrn, contents: .full).wipe()
}

// Warm up (statement cache, OS file cache), then measure.
for query in prefixes + twoWords { _ = try store.find(query, limit: limit) }
for mrn in heavy.prefix(20) { try open(mrn, in: store) }

var findPrefix: [UInt64] = []
var findTwo: [UInt64] = []
var opens: [UInt64] = []
var rows = 0
for i in 0..<iterations {
    if only == nil || only == "find" {
        let start = now()
        rows += try store.find(prefixes[i % prefixes.count], limit: limit).matches.count
        findPrefix.append(now() - start)
    }
    if only == nil || only == "two" {
        let start = now()
        rows += try store.find(twoWords[i % twoWords.count], limit: limit).matches.count
        findTwo.append(now() - start)
    }
    if only == nil || only == "open" {
        let start = now()
        try open(heavy[i % heavy.count], in: store)
        opens.append(now() - start)
    }
}
let rss = statusKB("VmRSS")
let peak = statusKB("VmHWM")
print("iterations: \(iterations) per operation; find limit \(limit); rows returned: \(rows)")
print("")
print(padded("operation", 34) + "     n    median       p90       p99       max  goal (median < 2 ms, p99 < 5 ms)")
var met = true
if !findPrefix.isEmpty { met = report("find, one 3-letter prefix (smi)", findPrefix) && met }
if !findTwo.isEmpty { met = report("find, two prefixes (mar smi)", findTwo) && met }
if !opens.isEmpty { met = report("open, chart with 100+ observations", opens) && met }
print("(times in ms)")
let memoryMet = peak.map { Double($0) / 1024 < memoryGoalMB } ?? false
print("memory: RSS \(megabytes(rss)), peak RSS \(megabytes(peak))  goal (< 50 MB) \(memoryMet ? "met" : "MISSED")")
store.close()
