import FoundationEssentials

/// A procedure performed (FHIR Procedure).
public struct Procedure: Sendable, Equatable {
    /// SNOMED CT code, or empty.
    public var code: String
    /// What was done, as the code's display text.
    public var display: String
    /// Why, as the reason's display text (`reasonCode`, else the Condition `reasonReference`
    /// names), or empty.
    public var reason: String
    /// `completed`, `in-progress`, …, or empty.
    public var status: String
    /// When it was performed (`performedDateTime`, or the start of `performedPeriod`).
    public var performed: Date?

    /// The code's system (`http://loinc.org`, `http://snomed.info/sct`, …), or empty: rows
    /// imported before Ward kept it (migration 4) have none.
    public var system: String

    public init(
        code: String = "",
        display: String,
        reason: String = "",
        status: String = "completed",
        performed: Date? = nil,
        system: String = ""
    ) {
        self.system = system
        self.code = code
        self.display = display
        self.reason = reason
        self.status = status
        self.performed = performed
    }
}
