import CSQLite
import FoundationEssentials

/// `ward import`: FHIR R4 bundles as Synthea writes them, and bulk-data NDJSON exports, from
/// files or directories.
///
/// An NDJSON export (one resource per line, one file per type) is read like one bundle whose
/// entries are its lines (`NDJSONSource`): its patients first, then every line, in one
/// transaction, so a bad line imports nothing of the export and is named by file and line.
///
/// Each bundle is streamed twice (`FHIRBundle`): its patients are read and checked first, then
/// every entry is written in the bundle's one transaction, so a malformed bundle imports nothing
/// and the ones around it are unaffected, and memory does not grow with the file. A Patient
/// already in the store with the same FHIR id and the same MRN is refreshed: demographics
/// replaced, its imported allergies, problems, medications, observations and encounters replaced
/// by the bundle's; notes written in Ward are kept. Importing the same bundle twice therefore
/// changes nothing. A Patient that matches a stored patient by only one of the two is refused
/// (`PatientClash`): it would overwrite someone else's chart.
///
/// The same rules for both stores: the embedded SQLite file, or the site's shared PostgreSQL
/// database, where each bundle or export is one PostgreSQL transaction (`ImportTarget` says
/// how the writes differ).
public struct FHIRImporter {
    private let store: any ImportingStore

    /// An importer into `store`; each backend's folder adds a public initializer for its store.
    init(into store: any ImportingStore) {
        self.store = store
    }

    /// Closes the store imported into: for `StoreBackend.openImporter()`'s, which the caller
    /// never sees.
    public func close() { store.close() }

    /// Imports every bundle and NDJSON export under `paths` (`ImportInput.inputs`), going on
    /// past failures; `progress(done, total, report)` is called after each input.
    public func importBundles(
        at paths: [String],
        progress: (Int, Int, ImportReport) -> Void = { _, _, _ in }
    ) -> ImportReport {
        var report = ImportReport()
        let (inputs, failures) = ImportInput.inputs(in: paths)
        report.failures = failures
        for (done, input) in inputs.enumerated() {
            let name: String
            switch input {
            case .bundle(let file):
                name = file
                report.files += 1
            case .export(let exportName, _):
                name = exportName
                report.exports += 1
            }
            do {
                switch input {
                case .bundle(let file): try importBundle(atPath: file, into: &report)
                case .export(let name, let files): try importExport(name: name, files: files, into: &report)
                }
            } catch let error as StoreError {
                report.failures.append(error)
            } catch {
                report.failures.append(.database(reason: "\(name): \(type(of: error))"))
            }
            progress(done + 1, inputs.count, report)
        }
        return report
    }

    /// Imports the NDJSON files of one bulk-data export in one transaction, reading each line as
    /// it comes (twice). Throws `StoreError.malformedLine` naming the file and line (or
    /// `.patientClash` naming `name`); nothing of the export is then written.
    public func importExport(name: String, files: [String], into report: inout ImportReport) throws {
        try importInput(file: name, into: &report, export: true, source: NDJSONSource(files: files))
    }

    /// Imports the bundle file at `path` in one transaction, reading it as a stream (twice).
    /// Throws `StoreError` naming the file; nothing of the bundle is then written.
    public func importBundle(atPath path: String, into report: inout ImportReport) throws {
        try importInput(file: path, into: &report, source: BundleSource { try JSONStreamReader(path: path) })
    }

    /// Imports one bundle held in memory in one transaction. Throws `StoreError.malformedBundle`
    /// naming `file` and the JSON path when the bundle is malformed, `.patientClash` when it would
    /// overwrite another patient; nothing of it is then written.
    public func importBundle(_ data: Data, file: String, into report: inout ImportReport) throws {
        try importInput(file: file, into: &report, source: BundleSource { JSONStreamReader(data: data) })
    }

    /// Reads and checks a bundle without a store, as far as it can be without one: everything
    /// but references to patients imported before, and clashes with stored patients. The entry
    /// point for fuzzing the reader (Fuzzing/run FHIRBundle); returns what an import would count.
    public static func check(_ data: Data, file: String) throws -> ImportReport {
        var report = ImportReport()
        try mapping(file: file) {
            let source = BundleSource { JSONStreamReader(data: data) }
            let bundle = try FHIRBundle(reading: source)
            report.count(bundle, try bundle.readResources(source) { _ in }, export: false)
        }
        return report
    }

    private func importInput(
        file: String,
        into report: inout ImportReport,
        export: Bool = false,
        source: some FHIRSource
    ) throws {
        let bundle = try Self.mapping(file: file, export: export) { try FHIRBundle(reading: source) }
        // Inside the transaction's closure, errors are mapped before the store sees them: its
        // `write` would turn any other error into an unnamed database error.
        let counts = try store.importTransaction { target in
            try Self.mapping(file: file, export: export) {
                var writer = BundleWriter(target: target, bundle: bundle)
                try writer.writePatients()
                let counts = try bundle.readResources(source) { try writer.write($0) }
                try target.finish()
                return counts
            }
        }
        report.count(bundle, counts, export: export)
    }

    /// Runs `body`, turning the reader's and writer's complaints into `StoreError`s naming `file`.
    private static func mapping<T>(file: String, export: Bool = false, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let problem as FHIRProblem {
            throw StoreError.malformedBundle(file: file, path: problem.path, problem: problem.problem)
        } catch let clash as PatientClash {
            if export { throw StoreError.patientClashInExport(file: file, clash: clash) }
            throw StoreError.patientClash(file: file, clash: clash)
        } catch let located as NDJSONProblem {
            switch located.reason {
            case .malformed(let problem):
                throw StoreError.malformedLine(
                    file: located.file,
                    line: located.line,
                    path: problem.path,
                    problem: problem.problem
                )
            case .clash(let clash):
                throw StoreError.patientClashInExport(file: "\(located.file):\(located.line)", clash: clash)
            }
        } catch StoreError.database(let reason) where reason.hasPrefix(PostgresLink.sqlStateReason + "23") {
            // PostgreSQL's integrity-constraint class (23…), as SQLite's constraint error below.
            if export { throw StoreError.exportConflict(file: file, constraint: reason) }
            throw StoreError.bundleConflict(file: file, constraint: reason)
        } catch let error as SQLiteError where error.primaryCode == SQLITE_CONSTRAINT {
            // After the writer's own checks, a sign of a bug or of a concurrent writer rather than
            // of the bundle; still reported as the bundle's data error, never as raw SQL.
            let constraint = error.message
            if export { throw StoreError.exportConflict(file: file, constraint: constraint) }
            throw StoreError.bundleConflict(file: file, constraint: constraint)
        }
    }
}

extension ImportReport {
    fileprivate mutating func count(
        _ bundle: FHIRBundle,
        _ counts: (read: [String: Int], skipped: [String: Int]),
        export: Bool
    ) {
        if export { exportsImported += 1 } else { bundles += 1 }
        patients += bundle.patients.count
        imported.merge(counts.read, uniquingKeysWith: +)
        skipped.merge(counts.skipped, uniquingKeysWith: +)
    }
}
