import Foundation

/// A report on a set of results (FHIR DiagnosticReport): a lab panel, an imaging study.
public struct DiagnosticReport: Sendable, Equatable {
    /// The LOINC code, or empty.
    public var code: String
    /// What was reported, as the code's display text.
    public var name: String
    /// `final`, `preliminary`, `amended`, …, or empty.
    public var status: String
    /// `effectiveDateTime`, else the start of `effectivePeriod`, else `issued`.
    public var date: Date?
    /// The referenced Observations, by name: each reference's `display` (Synthea writes one),
    /// else the name of the Observation it refers to in the same import.
    public var results: [String]
    /// The report's free-text conclusion, or empty.
    public var conclusion: String

    public init(
        code: String = "",
        name: String,
        status: String = "final",
        date: Date? = nil,
        results: [String] = [],
        conclusion: String = ""
    ) {
        self.code = code
        self.name = name
        self.status = status
        self.date = date
        self.results = results
        self.conclusion = conclusion
    }
}
