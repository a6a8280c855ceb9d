import ArgumentParser
import Foundation
import Glibc
import WardCore
import WardRecords

extension Ward {
    /// `ward import PATH...`: FHIR R4 bundles (Synthea output) and bulk-data NDJSON exports into
    /// the home's records.
    ///
    /// Goes on past a bad bundle so one bad file does not hold back a directory of good ones;
    /// each bad bundle is named with its file and JSON path, imports nothing, and the command
    /// exits 65 at the end (66 when an input could not be read at all). A bundle whose Patient
    /// matches a stored patient by FHIR id or by MRN but not by both is such a bad bundle: it
    /// would overwrite another person's chart. Bundles are streamed, so a file of hundreds of
    /// megabytes needs tens of megabytes of memory (Benchmarks/Import).
    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Import FHIR R4 bundles (Synthea output) and bulk-data NDJSON exports into the records."
        )

        @OptionGroup var global: GlobalOptions

        @Argument(
            help: ArgumentHelp(
                "Bundle files, *.ndjson files, or directories of *.json bundles and *.ndjson exports.",
                valueName: "path"
            )
        )
        var paths: [String]

        func validate() throws {
            if paths.isEmpty {
                throw ValidationError("Name at least one bundle, NDJSON file or directory to import.")
            }
        }

        func run() throws {
            let home = try WardHome.open(option: global.home)
            let store = try SQLiteRecordStore(path: home.recordsPath)
            defer { store.close() }
            let progress = ProgressLine(label: "Importing bundles")
            var reported = 0
            let report = FHIRImporter(store: store).importBundles(at: paths) { done, total, report in
                // Failures as they happen, between progress lines.
                for failure in report.failures.dropFirst(reported) {
                    progress.clearLine()
                    StandardError.report(failure.description)
                }
                reported = report.failures.count
                progress.show(done, of: total, detail: "\(report.patients) patients")
            }
            for failure in report.failures.dropFirst(reported) { StandardError.report(failure.description) }
            if report.files + report.exports > 0 { progress.finish() }
            var summary = "\(report.headline): \(report.patients) patients"
            if !report.imported.isEmpty { summary += "; " + ImportReport.summary(report.imported) }
            if !report.skipped.isEmpty { summary += ". Skipped: " + ImportReport.summary(report.skipped) }
            StandardError.write(summary + ".\n")
            if report.exitStatus != .success { throw CommandLineError.reported(report.exitStatus) }
        }
    }
}
