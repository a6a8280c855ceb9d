// records-benchmark: makes (or reuses) a demo home, then times what the shell's `find` and `open`
// run, through the same `RecordStore` calls the shell makes: `find(text, limit: 20)` as
// `FindCommand` calls it, and `lookUp(mrn:)` then `chart(mrn:contents: .full)` as `OpenCommand`
// does for a clinician, on the embedded SQLite store, a PostgreSQL store, or both on the same data
// (issue 17). Reports median, p90, p99 and max per operation and backend, the resident memory of
// the processes that ran the queries (VmRSS at the end, VmHWM peak, from /proc/self/status; for
// PostgreSQL Ward's side only, not the server's), and whether each goal is met.
//
// Each backend's queries run in processes of their own, by turns (sqlite, postgresql, then
// postgresql, sqlite, ...: `--rounds` of each), so a load that comes and goes on the machine falls
// on both alike and one store's memory is never counted in the other's. With one backend and
// `--rounds 1` everything runs in this process, for a profiler (with `--only`).
//
// Options: --home DIR (the SQLite demo home; default /tmp/ward-records-bench), --patients N (for a
// new home; 1000000), --backend sqlite|postgresql|both (sqlite), --postgres-url URL (the site
// file's form; a socket's directory percent-encoded as the host), --postgres-password-file FILE
// (for a loopback TCP URL), --iterations N (per operation and backend; 2000), --rounds N (4),
// --limit N (20, FindCommand.limit), --only find|two|open (time one operation alone).
// Benchmarks/Records/postgres_server.py starts a server and fills it from the home.
import Foundation
import Glibc
import WardRecords

let home = option("--home") ?? "/tmp/ward-records-bench"
let patients = Int(option("--patients") ?? "1000000")!
let iterations = Int(option("--iterations") ?? "2000")!
let rounds = max(1, Int(option("--rounds") ?? "4")!)
let limit = Int(option("--limit") ?? "20")!
let only = option("--only")

// A child: one backend, the charts to open from a file (MRNs are not put on a command line).
if let name = option("--child"), let backend = Backend(rawValue: name), let list = option("--mrns"),
    let out = option("--out")
{
    let heavy = try String(contentsOfFile: list, encoding: .utf8).split(separator: "\n").map(String.init)
    let store = try openStore(backend, home: home)
    let samples = try measure(store, heavy: heavy, iterations: iterations, limit: limit, only: only)
    store.close()
    try samples.text.write(toFile: out, atomically: false, encoding: .utf8)
    exit(0)
}

let backends: [Backend]
switch option("--backend") ?? "sqlite" {
case "both": backends = [.sqlite, .postgresql]
case let name:
    guard let backend = Backend(rawValue: name) else { fail("--backend: sqlite, postgresql or both") }
    backends = [backend]
}

try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
let file = (home as NSString).appendingPathComponent(SQLiteRecordStore.fileName)
if backends.contains(.sqlite), !FileManager.default.fileExists(atPath: file) {
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

// The same charts for every backend, chosen on the first.
let first = try openStore(backends[0], home: home)
let total = try first.demoMarker()?.patients ?? first.patientCount()
for backend in backends {
    let store = backend == backends[0] ? first : try openStore(backend, home: home)
    let count = try store.patientCount()
    print("\(backend.rawValue): \(count) patients")
    if count != total { fail("the backends hold different records (\(count) and \(total) patients)") }
    if backend != backends[0] { store.close() }
}
print("after open: RSS \(megabytes(statusKB("VmRSS")))")
let heavy = try heavyCharts(first)

if backends.count == 1, rounds == 1 {
    let samples = try measure(first, heavy: heavy, iterations: iterations, limit: limit, only: only)
    print("iterations: \(iterations) per operation; find limit \(limit)")
    report(backends[0], samples, processes: 1)
    first.close()
    exit(0)
}
first.close()

var work = Array("/tmp/records-benchmark-XXXXXX".utf8CString)
guard let made = mkdtemp(&work) else { fail("mkdtemp failed") }
let directory = String(cString: made)
defer { try? FileManager.default.removeItem(atPath: directory) }
let list = directory + "/charts"
try heavy.joined(separator: "\n").write(toFile: list, atomically: false, encoding: .utf8)

/// Runs one child for `backend` and returns its samples.
func child(_ backend: Backend, iterations: Int) throws -> Samples {
    let out = directory + "/samples"
    var arguments = [
        "--child", backend.rawValue, "--mrns", list, "--out", out, "--home", home, "--iterations", "\(iterations)",
        "--limit", "\(limit)",
    ]
    for name in ["--only", "--postgres-url", "--postgres-password-file"] {
        if let value = option(name) { arguments += [name, value] }
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    process.arguments = arguments
    try process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { fail("the \(backend.rawValue) run exited \(process.terminationStatus)") }
    defer { unlink(out) }
    return Samples(text: try String(contentsOfFile: out, encoding: .utf8))
}

var results: [Backend: Samples] = [:]
let perRound = (iterations + rounds - 1) / rounds
for round in 0..<rounds {
    for backend in round % 2 == 0 ? backends : backends.reversed() {
        results[backend, default: Samples()].add(try child(backend, iterations: perRound))
    }
}
print("iterations: \(perRound * rounds) per operation and backend, in \(rounds) rounds; find limit \(limit)")
for backend in backends { report(backend, results[backend]!, processes: rounds) }
