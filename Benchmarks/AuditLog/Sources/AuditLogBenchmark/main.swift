// Appends access records (`open MRN-1042`) to a fresh log with each fsync policy, keyed and not, and prints
// records per second. Each append is the real path: flock, tail read, head check, write,
// sync per policy, head update. Then the same with each record forwarded to a real rsyslogd.
import AuditLog
import Crypto
import Glibc
import WardCore

func argument(_ name: String) -> String? {
    guard let i = CommandLine.arguments.firstIndex(of: name), i + 1 < CommandLine.arguments.count else { return nil }
    return CommandLine.arguments[i + 1]
}

let base = argument("--dir") ?? "/tmp"
let counts: [AuditWriter.SyncPolicy: Int] = [
    .always: Int(argument("--records") ?? "") ?? 2_000,
    .interval: Int(argument("--records") ?? "") ?? 20_000,
    .never: Int(argument("--records") ?? "") ?? 20_000,
]

var template = Array("\(base)/auditlog-bench-XXXXXX".utf8CString)
guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
    fatalError("mkdtemp in \(base) failed")
}
let directory = String(cString: template)
let session = AuditRecord.SessionFields(id: "bench", user: "demo", role: "clinician")
let entry = AuditEntry.access(RecordAccess(.opened, record: "MRN-1042", outcome: .ok))

print("fsync     key    records   seconds   records/s")
for policy in AuditWriter.SyncPolicy.allCases {
    for keyed in [false, true] {
        let path = "\(directory)/\(policy.rawValue)-\(keyed ? "hmac" : "sha").jsonl"
        let chain = keyed ? AuditChain(key: SymmetricKey(size: .bits256)) : AuditChain()
        let writer = try AuditWriter(path: path, chain: chain, policy: policy)
        let n = counts[policy]!
        let clock = ContinuousClock()
        let elapsed = try clock.measure {
            var lastSync = clock.now
            for _ in 0..<n {
                try writer.append(entry, session: session, source: "tty")
                // What the plugin's deadline does under `interval`: one sync a second.
                if policy == .interval, clock.now - lastSync >= .seconds(1) {
                    try writer.sync()
                    lastSync = clock.now
                }
            }
            if policy != .never { try writer.sync() }
        }
        writer.close()
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let report = try AuditVerifier(chain: chain).verify(path: path)
        precondition(report.isIntact && report.records == n, "the benchmark's own log does not verify")
        print(
            policy.rawValue.padding(10) + (keyed ? "hmac" : "sha").padding(7) + String(n).padding(10)
                + String(format3(seconds)).padding(10) + String(Int(Double(n) / seconds))
        )
        _ = unlink(path)
        _ = unlink(AuditHead.path(forLog: path))
    }
}

// Forwarding: the same appends, each record then sent to a real rsyslogd this benchmark starts
// (its own config and socket in the directory, writing every message to a file), as
// `forward = "syslog"` does. Unkeyed; the median of `--rounds` runs each, alternating.
if let daemon = BenchmarkRsyslog(directory: directory) {
    let rounds = Int(argument("--rounds") ?? "") ?? 5
    print("\nforwarding to rsyslogd (median of \(rounds) runs)")
    print("fsync     records   records/s file only   records/s forwarded   ratio")
    var sent = 0
    for policy in AuditWriter.SyncPolicy.allCases {
        let n = counts[policy]!
        var plain: [Double] = []
        var forwarded: [Double] = []
        for round in 0..<rounds {
            for forwarding in [false, true] {
                let path = "\(directory)/forward-\(policy.rawValue)-\(round)-\(forwarding).jsonl"
                let forwarder = forwarding ? SyslogForwarder(socketPath: daemon.socketPath) : nil
                let writer = try AuditWriter(path: path, policy: policy)
                let clock = ContinuousClock()
                let elapsed = try clock.measure {
                    var lastSync = clock.now
                    for _ in 0..<n {
                        let written = try writer.append(entry, session: session, source: "tty")
                        try forwarder?.send(line: written.line)
                        if policy == .interval, clock.now - lastSync >= .seconds(1) {
                            try writer.sync()
                            lastSync = clock.now
                        }
                    }
                    if policy != .never { try writer.sync() }
                }
                writer.close()
                forwarder?.close()
                if forwarding { sent += n }
                let rate =
                    Double(n) / (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
                if forwarding { forwarded.append(rate) } else { plain.append(rate) }
                _ = unlink(path)
                _ = unlink(AuditHead.path(forLog: path))
            }
        }
        let a = median(plain)
        let b = median(forwarded)
        print(
            policy.rawValue.padding(10) + String(n).padding(10) + String(Int(a)).padding(22)
                + String(Int(b)).padding(22) + format3(b / a)
        )
    }
    let received = daemon.stop(expecting: sent)
    precondition(received == sent, "rsyslogd wrote \(received) of the \(sent) messages sent")
    print("rsyslogd wrote all \(received) messages")
} else {
    print("\nforwarding: rsyslogd not found; install the Debian package 'rsyslog' (scripts/install-deps)")
}
_ = rmdir(directory)

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.count % 2 == 1
        ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

extension String {
    func padding(_ width: Int) -> String { self + String(repeating: " ", count: max(1, width - count)) }
}

func format3(_ x: Double) -> String {
    let ms = Int((x * 1000).rounded())
    let frac = String(ms % 1000)
    return "\(ms / 1000)." + String(repeating: "0", count: 3 - frac.count) + frac
}
