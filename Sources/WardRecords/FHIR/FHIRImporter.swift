import Foundation
import GRDB

/// `ward import`: FHIR R4 bundles as Synthea writes them, from files or directories.
///
/// Each bundle is streamed twice (`FHIRBundle`): its patients are read and checked first, then
/// every entry is written in the bundle's one transaction, so a malformed bundle imports nothing
/// and the ones around it are unaffected, and memory does not grow with the file. A Patient
/// already in the store with the same FHIR id and the same MRN is refreshed: demographics
/// replaced, its imported allergies, problems, medications, observations and encounters replaced
/// by the bundle's; notes written in Ward are kept. Importing the same bundle twice therefore
/// changes nothing. A Patient that matches a stored patient by only one of the two is refused
/// (`PatientClash`): it would overwrite someone else's chart.
public struct FHIRImporter {
    private let store: SQLiteRecordStore

    public init(store: SQLiteRecordStore) {
        self.store = store
    }

    /// The bundle files under `paths`: each file as given, each directory's `*.json` files
    /// (recursively, sorted, so runs are repeatable). Unreadable paths become failures.
    public static func files(in paths: [String]) -> (files: [String], failures: [StoreError]) {
        var files: [String] = []
        var failures: [StoreError] = []
        let manager = FileManager.default
        for path in paths {
            var isDirectory: ObjCBool = false
            guard manager.fileExists(atPath: path, isDirectory: &isDirectory) else {
                failures.append(.unreadable(path: path))
                continue
            }
            guard isDirectory.boolValue else {
                files.append(path)
                continue
            }
            guard let walker = manager.enumerator(atPath: path) else {
                failures.append(.unreadable(path: path))
                continue
            }
            var found: [String] = []
            while let relative = walker.nextObject() as? String {
                if relative.lowercased().hasSuffix(".json") {
                    found.append((path as NSString).appendingPathComponent(relative))
                }
            }
            files += found.sorted()
        }
        return (files, failures)
    }

    /// Imports every bundle under `paths`, going on past failures; `progress(done, total, report)`
    /// is called after each file.
    public func importBundles(
        at paths: [String],
        progress: (Int, Int, ImportReport) -> Void = { _, _, _ in }
    ) -> ImportReport {
        var report = ImportReport()
        let (files, failures) = Self.files(in: paths)
        report.failures = failures
        for (done, file) in files.enumerated() {
            report.files += 1
            do {
                try importBundle(atPath: file, into: &report)
            } catch let error as StoreError {
                report.failures.append(error)
            } catch {
                report.failures.append(.database(reason: "\(file): \(type(of: error))"))
            }
            progress(done + 1, files.count, report)
        }
        return report
    }

    /// Imports the bundle file at `path` in one transaction, reading it as a stream (twice).
    /// Throws `StoreError` naming the file; nothing of the bundle is then written.
    public func importBundle(atPath path: String, into report: inout ImportReport) throws {
        try importBundle(file: path, into: &report) { try JSONStreamReader(path: path) }
    }

    /// Imports one bundle held in memory in one transaction. Throws `StoreError.malformedBundle`
    /// naming `file` and the JSON path when the bundle is malformed, `.patientClash` when it would
    /// overwrite another patient; nothing of it is then written.
    public func importBundle(_ data: Data, file: String, into report: inout ImportReport) throws {
        try importBundle(file: file, into: &report) { JSONStreamReader(data: data) }
    }

    /// Reads and checks a bundle without a store, as far as it can be without one: everything
    /// but references to patients imported before, and clashes with stored patients. The entry
    /// point for fuzzing the reader (Fuzzing/run FHIRBundle); returns what an import would count.
    public static func check(_ data: Data, file: String) throws -> ImportReport {
        var report = ImportReport()
        try mapping(file: file) {
            let bundle = try FHIRBundle(reading: JSONStreamReader(data: data))
            report.count(bundle, try bundle.readResources(JSONStreamReader(data: data)) { _ in })
        }
        return report
    }

    private func importBundle(
        file: String,
        into report: inout ImportReport,
        reader: () throws -> JSONStreamReader
    ) throws {
        let bundle = try Self.mapping(file: file) { try FHIRBundle(reading: try reader()) }
        // Inside the transaction's closure, errors are mapped before GRDB rethrows them: the
        // store's `write` would turn any other error into an unnamed database error.
        let counts = try store.write { db in
            try Self.mapping(file: file) {
                var writer = BundleWriter(db: db, bundle: bundle)
                try writer.writePatients()
                return try bundle.readResources(try reader()) { try writer.write($0) }
            }
        }
        report.count(bundle, counts)
    }

    /// Runs `body`, turning the reader's and writer's complaints into `StoreError`s naming `file`.
    private static func mapping<T>(file: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let problem as FHIRProblem {
            throw StoreError.malformedBundle(file: file, path: problem.path, problem: problem.problem)
        } catch let clash as PatientClash {
            throw StoreError.patientClash(file: file, clash: clash)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
            // After the writer's own checks, a sign of a bug or of a concurrent writer rather than
            // of the bundle; still reported as the bundle's data error, never as raw SQL.
            throw StoreError.bundleConflict(
                file: file,
                constraint: error.message ?? "SQLite error \(error.extendedResultCode.rawValue)"
            )
        }
    }
}

extension ImportReport {
    fileprivate mutating func count(_ bundle: FHIRBundle, _ counts: (read: [String: Int], skipped: [String: Int])) {
        bundles += 1
        patients += bundle.patients.count
        imported.merge(counts.read, uniquingKeysWith: +)
        skipped.merge(counts.skipped, uniquingKeysWith: +)
    }
}
