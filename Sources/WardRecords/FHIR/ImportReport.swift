/// What `ward import` did: counts only, never a patient field, so it can be printed and logged.
public struct ImportReport: Sendable, Equatable {
    /// Bundle files read.
    public var files = 0
    /// Bundles imported whole.
    public var bundles = 0
    /// Patients written (new or refreshed).
    public var patients = 0
    /// Resources imported, by FHIR type.
    public var imported: [String: Int] = [:]
    /// Resources counted and skipped, by FHIR type.
    public var skipped: [String: Int] = [:]
    /// One error per bundle that imported nothing, or input that could not be read.
    public var failures: [StoreError] = []

    public init() {}

    /// 0 when everything was imported; else the exit code the CLI contract gives: 65 for a
    /// malformed bundle (data error) before 66 for unreadable input.
    public var sysexit: Int32 {
        if failures.contains(where: { $0.sysexit == 65 }) { return 65 }
        return failures.first?.sysexit ?? 0
    }

    /// `Type count` pairs, largest first, for a summary line.
    public static func summary(_ counts: [String: Int]) -> String {
        counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
            .map { "\($0.key) \($0.value)" }.joined(separator: ", ")
    }
}
