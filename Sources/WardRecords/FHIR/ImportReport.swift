import WardCore

/// What `ward import` did: counts only, never a patient field, so it can be printed and logged.
public struct ImportReport: Sendable, Equatable {
    /// Bundle files read.
    public var files = 0
    /// Bundles imported whole.
    public var bundles = 0
    /// NDJSON exports read (each a directory's `*.ndjson` files, or those named on the line).
    public var exports = 0
    /// NDJSON exports imported whole.
    public var exportsImported = 0
    /// Patients written (new or refreshed).
    public var patients = 0
    /// Resources imported, by FHIR type.
    public var imported: [String: Int] = [:]
    /// Resources counted and skipped, by FHIR type.
    public var skipped: [String: Int] = [:]
    /// One error per bundle that imported nothing, or input that could not be read.
    public var failures: [StoreError] = []

    public init() {}

    /// Success when everything was imported; else the status the CLI contract gives: a data
    /// error for a malformed bundle before no input for an unreadable one.
    public var exitStatus: ExitStatus {
        if failures.contains(where: { $0.exitStatus == .dataError }) { return .dataError }
        return failures.first?.exitStatus ?? .success
    }

    /// `Imported 2 of 3 bundles`, `Imported 1 of 1 NDJSON exports`, or both: what was read.
    public var headline: String {
        var parts: [String] = []
        if files > 0 || exports == 0 { parts.append("\(bundles) of \(files) bundles") }
        if exports > 0 { parts.append("\(exportsImported) of \(exports) NDJSON exports") }
        return "Imported " + parts.joined(separator: " and ")
    }

    /// Adds the counts and failures of one more import (`ward import` imports path by path, to
    /// record each in the audit log).
    public mutating func add(_ other: ImportReport) {
        files += other.files
        bundles += other.bundles
        exports += other.exports
        exportsImported += other.exportsImported
        patients += other.patients
        imported.merge(other.imported, uniquingKeysWith: +)
        skipped.merge(other.skipped, uniquingKeysWith: +)
        failures += other.failures
    }

    /// `Type count` pairs, largest first, for a summary line.
    public static func summary(_ counts: [String: Int]) -> String {
        counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
            .map { "\($0.key) \($0.value)" }.joined(separator: ", ")
    }
}
