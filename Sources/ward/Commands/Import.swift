import ArgumentParser
import AuditLog
import FoundationEssentials
import Glibc
import WardCore
import WardRecords

extension Ward {
    /// `ward import PATH...`: FHIR R4 bundles (Synthea output) and bulk-data NDJSON exports into
    /// the home's records, or into the site's shared database when its records are on
    /// PostgreSQL (`[records] backend = "postgresql"`), by the same rules.
    ///
    /// Goes on past a bad bundle so one bad file does not hold back a directory of good ones;
    /// each bad bundle is named with its file and JSON path, imports nothing, and the command
    /// exits 65 at the end (66 when an input could not be read at all). A bundle whose Patient
    /// matches a stored patient by FHIR id or by MRN but not by both is such a bad bundle: it
    /// would overwrite another person's chart. Bundles are streamed, so a file of hundreds of
    /// megabytes needs tens of megabytes of memory (Benchmarks/Import).
    ///
    /// Each path given is imported in turn (the NDJSON files named on the line together, as one
    /// export) and leaves one `import` record in the audit log, with its counts (`AdministrativeAudit`): a log that cannot be opened stops the command before
    /// anything is imported, and one that cannot be written after a path stops it there.
    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Import FHIR R4 bundles (Synthea output) and bulk-data NDJSON exports into the records.",
            discussion: """
                The records are the home's, or the site's shared database when its records are on \
                PostgreSQL ([records] backend = "postgresql"). Each bundle, and each export, is \
                imported whole or not at all.
                """
        )

        @OptionGroup var global: GlobalOptions

        @Argument(
            help: ArgumentHelp(
                "Bundle files, *.ndjson files, or directories of *.json bundles and *.ndjson exports.",
                valueName: "path"
            ),
            completion: .file()
        )
        var paths: [String]

        func validate() throws {
            if paths.isEmpty {
                throw ValidationError("Name at least one bundle, NDJSON file or directory to import.")
            }
        }

        func run() throws {
            let home = try WardHome.open(option: global.home)
            let audit = try AdministrativeAudit.open(global: global, home: home)
            let importer = try recordsBackend(global: global, home: home).openImporter()
            defer { importer.close() }
            let progress = ProgressLine(label: "Importing bundles")
            var report = ImportReport()
            for unit in Self.units(paths) {
                // Before the store changes: the path, with nothing counted yet.
                try audit.recordStart(
                    .importBundles(
                        path: Self.absolutePath(unit[0]),
                        counts: AuditEntry.ImportCounts(files: 0, bundles: 0, patients: 0, resources: 0, failures: 0),
                        by: audit.unixUser,
                        status: nil
                    )
                )
                var reported = 0
                let done = importer.importBundles(at: unit) { done, total, part in
                    // Failures as they happen, between progress lines.
                    for failure in part.failures.dropFirst(reported) {
                        progress.clearLine()
                        StandardError.report(failure.description)
                    }
                    reported = part.failures.count
                    progress.show(done, of: total, detail: HomeContents.patients(report.patients + part.patients))
                }
                for failure in done.failures.dropFirst(reported) { StandardError.report(failure.description) }
                report.add(done)
                try audit.record(
                    .importBundles(
                        path: Self.absolutePath(unit[0]),
                        counts: AuditEntry.ImportCounts(
                            files: done.files,
                            bundles: done.bundles,
                            exports: done.exports,
                            exportsImported: done.exportsImported,
                            patients: done.patients,
                            resources: done.imported.values.reduce(0, +),
                            failures: done.failures.count
                        ),
                        by: audit.unixUser,
                        status: done.exitStatus
                    )
                )
            }
            if report.files + report.exports > 0 { progress.finish() }
            var summary = "\(report.headline): " + HomeContents.patients(report.patients)
            if !report.imported.isEmpty { summary += "; " + ImportReport.summary(report.imported) }
            if !report.skipped.isEmpty { summary += ". Skipped: " + ImportReport.summary(report.skipped) }
            StandardError.write(summary + ".\n")
            if report.exitStatus != .success { throw CommandLineError.reported(report.exitStatus) }
        }

        /// What is imported, and recorded, at once: each path alone, except the NDJSON files named
        /// on the line, which are one export (its record names the first file; `files` counts them).
        static func units(_ paths: [String]) -> [[String]] {
            func isNDJSONFile(_ path: String) -> Bool {
                var info = stat()
                let name = path.lowercased()
                return (name.hasSuffix(".ndjson") || name.hasSuffix(".ndjson.gz"))
                    && stat(path, &info) == 0 && info.st_mode & S_IFMT != S_IFDIR
            }
            let named = paths.filter(isNDJSONFile)
            return paths.filter { !isNDJSONFile($0) }.map { [$0] } + (named.isEmpty ? [] : [named])
        }

        /// `path` as the audit record names it: resolved (`realpath`) when it exists, so that the
        /// record says which file was read whatever the working directory was; else as given.
        static func absolutePath(_ path: String) -> String {
            guard let resolved = realpath(path, nil) else { return path }
            defer { free(resolved) }
            return String(cString: resolved)
        }
    }
}
