import FoundationEssentials

/// A problem-list entry (FHIR Condition).
public struct Problem: Sendable, Equatable {
    /// SNOMED CT code, or empty.
    public var code: String
    public var display: String
    /// `active`, `resolved`, `inactive`, …, or empty.
    public var status: String
    public var onset: Date?
    public var abated: Date?

    /// The code's system (`http://loinc.org`, `http://snomed.info/sct`, …), or empty: rows
    /// imported before Ward kept it (migration 4) have none.
    public var system: String

    public init(
        code: String,
        display: String,
        status: String = "active",
        onset: Date? = nil,
        abated: Date? = nil,
        system: String = ""
    ) {
        self.system = system
        self.code = code
        self.display = display
        self.status = status
        self.onset = onset
        self.abated = abated
    }
}
