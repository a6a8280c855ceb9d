import Foundation
import Glibc
import WardRecords

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

let prefixes = [
    "smi", "joh", "wil", "bro", "gar", "mil", "dav", "rod", "mar", "her", "lop", "gon", "and", "tho", "tay",
    "moo", "jac", "lee", "per", "whi", "har", "san", "cla", "ram", "lew", "rob", "wal", "you", "all", "kin",
]
let twoWords = ["mar smi", "joh wil", "jen bro", "jam gar", "lin dav", "rob mil", "eli tho", "dav lee"]

/// Charts with 100+ observations: random MRNs, kept when their chart is that big.
func heavyCharts(_ store: any RecordStore) throws -> [String] {
    let total = try store.demoMarker()?.patients ?? store.patientCount()
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
    guard !heavy.isEmpty else { fail("no chart with 100+ observations among \(sampled) sampled; use a bigger demo home") }
    sizes.sort()
    print(
        "charts with 100+ observations: \(heavy.count) of \(sampled) sampled; "
            + "observations per chart \(sizes.first!)...\(sizes.last!), median \(sizes[sizes.count / 2])")
    store.releaseMemory()
    return heavy
}

/// What `open MRN` runs for a clinician: the find row (the restricted check), then the chart.
func open(_ mrn: String, in store: any RecordStore) throws {
    guard let match = try store.lookUp(mrn: mrn) else { throw StoreError.noSuchPatient }
    try store.chart(mrn: match.mrn, contents: .full).wipe()
}

/// One process's samples of each operation, in nanoseconds, and its memory.
struct Samples {
    var find: [UInt64] = []
    var two: [UInt64] = []
    var open: [UInt64] = []
    var rows = 0
    var rssKB = 0
    var peakKB = 0

    mutating func add(_ other: Samples) {
        find += other.find
        two += other.two
        open += other.open
        rows += other.rows
        rssKB = max(rssKB, other.rssKB)
        peakKB = max(peakKB, other.peakKB)
    }

    /// The lines a child process hands its parent.
    var text: String {
        ["find \(find.map(String.init).joined(separator: " "))", "two \(two.map(String.init).joined(separator: " "))",
         "open \(open.map(String.init).joined(separator: " "))", "rows \(rows)", "rss \(rssKB)", "peak \(peakKB)"]
            .joined(separator: "\n") + "\n"
    }

    init() {}

    init(text: String) {
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard let name = fields.first else { continue }
            let numbers = fields.dropFirst().compactMap { UInt64($0) }
            switch name {
            case "find": find = numbers
            case "two": two = numbers
            case "open": open = numbers
            case "rows": rows = Int(numbers.first ?? 0)
            case "rss": rssKB = Int(numbers.first ?? 0)
            case "peak": peakKB = Int(numbers.first ?? 0)
            default: break
            }
        }
    }
}

/// Warms `store` up (statement caches, the OS's and the server's caches), then times
/// `iterations` of each operation by turns, as `FindCommand` and `OpenCommand` call them.
func measure(_ store: any RecordStore, heavy: [String], iterations: Int, limit: Int, only: String?) throws -> Samples {
    for query in prefixes + twoWords { _ = try store.find(query, limit: limit) }
    for mrn in heavy.prefix(20) { try open(mrn, in: store) }
    var samples = Samples()
    let offset = Int.random(in: 0..<1000)
    for j in 0..<iterations {
        let i = j + offset
        if only == nil || only == "find" {
            let start = now()
            samples.rows += try store.find(prefixes[i % prefixes.count], limit: limit).matches.count
            samples.find.append(now() - start)
        }
        if only == nil || only == "two" {
            let start = now()
            samples.rows += try store.find(twoWords[i % twoWords.count], limit: limit).matches.count
            samples.two.append(now() - start)
        }
        if only == nil || only == "open" {
            let start = now()
            try open(heavy[i % heavy.count], in: store)
            samples.open.append(now() - start)
        }
    }
    samples.rssKB = statusKB("VmRSS") ?? 0
    samples.peakKB = statusKB("VmHWM") ?? 0
    return samples
}

/// Prints one operation's line; returns whether it met the time goals.
func report(_ name: String, _ samples: [UInt64], goals: (median: Double, p99: Double, memoryMB: Double)) -> Bool {
    let sorted = samples.sorted()
    func at(_ q: Double) -> Double { milliseconds(sorted[min(sorted.count - 1, Int(q * Double(sorted.count)))]) }
    let met = at(0.5) < goals.median && at(0.99) < goals.p99
    print(
        padded(name, 34)
            + String(
                format: "%6d %9.3f %9.3f %9.3f %9.3f  ", sorted.count, at(0.5), at(0.9), at(0.99),
                milliseconds(sorted.last!)) + (met ? "met" : "MISSED"))
    return met
}

/// One backend's table.
func report(_ backend: Backend, _ samples: Samples, processes: Int) {
    let goals = backend.goals
    print("")
    print("\(backend.rawValue): \(processes) process(es); rows returned: \(samples.rows)")
    print(
        padded("operation", 34)
            + "     n    median       p90       p99       max  goal (median < \(Int(goals.median)) ms, p99 < \(Int(goals.p99)) ms)")
    if !samples.find.isEmpty { _ = report("find, one 3-letter prefix (smi)", samples.find, goals: goals) }
    if !samples.two.isEmpty { _ = report("find, two prefixes (mar smi)", samples.two, goals: goals) }
    if !samples.open.isEmpty { _ = report("open, chart with 100+ observations", samples.open, goals: goals) }
    let memoryMet = Double(samples.peakKB) / 1024 < goals.memoryMB
    print(
        "(times in ms) memory: RSS \(megabytes(samples.rssKB)), peak RSS \(megabytes(samples.peakKB))  "
            + "goal (< \(Int(goals.memoryMB)) MB) \(memoryMet ? "met" : "MISSED")")
}
