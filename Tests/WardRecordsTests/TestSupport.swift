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
