import FoundationEssentials

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
    /// else the name of the Observation it refers to in the same import; with the
    /// Observation's value when it is in the same import.
    public var results: [ReportResult]
    /// The report's free-text conclusion, or empty.
    public var conclusion: String

    /// The code's system (`http://loinc.org`, `http://snomed.info/sct`, …), or empty: rows
    /// imported before Ward kept it (migration 4) have none.
    public var system: String
    /// What the report's `presentedForm` holds, as text: a `text/plain` attachment's words
    /// (cut at `FHIRBundle.presentedFormLimit`), else its title, content type and size; empty
    /// when it has none. Shown as the conclusion when the report has none.
    public var presentedForm: String

    public init(
        code: String = "",
        name: String,
        status: String = "final",
        date: Date? = nil,
        results: [ReportResult] = [],
        conclusion: String = "",
        system: String = "",
        presentedForm: String = ""
    ) {
        self.system = system
        self.presentedForm = presentedForm
        self.code = code
        self.name = name
        self.status = status
        self.date = date
        self.results = results
        self.conclusion = conclusion
    }
}
