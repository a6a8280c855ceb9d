import FHIRTestSupport
import Foundation

@testable import WardRecords

/// A fresh directory under /tmp, removed by `remove()`.
struct TemporaryHome {
    let path: String

    init() {
        path = NSTemporaryDirectory() + "ward-records-tests-" + UUID().uuidString
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    var recordsPath: String { path + "/" + SQLiteRecordStore.fileName }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

extension SQLiteRecordStore {
    /// Imports bundles made by `Bundles`, failing the test on any error.
    func importing(_ bundles: Data...) throws {
        var report = ImportReport()
        for (index, data) in bundles.enumerated() {
            try FHIRImporter(store: self).importBundle(data, file: "bundle\(index).json", into: &report)
        }
    }
}

/// Whether `condition` came to hold within `limit`, asked every 10 ms: what a server does on its
/// own time (a backend exiting, a lock dropped) is observed, never waited for by the clock.
func held(within limit: Duration, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = ContinuousClock.now + limit
    while try !condition() {
        guard ContinuousClock.now < deadline else { return false }
        usleep(10_000)  // the polling interval, not a wait for anything
    }
    return true
}
