import FoundationEssentials

/// An allergy or intolerance (FHIR AllergyIntolerance).
public struct Allergy: Sendable, Equatable {
    /// The substance, as its code's display text.
    public var substance: String
    /// The SNOMED CT or RxNorm code, or empty.
    public var code: String
    /// `low`, `high`, `unable-to-assess`, or empty.
    public var criticality: String
    /// `food`, `medication`, `environment`, `biologic`, or empty.
    public var category: String
    /// `active`, `inactive`, `resolved`, or empty.
    public var status: String
    public var recorded: Date?

    /// The code's system (`http://loinc.org`, `http://snomed.info/sct`, …), or empty: rows
    /// imported before Ward kept it (migration 4) have none.
    public var system: String

    public init(
        substance: String,
        code: String = "",
        criticality: String = "",
        category: String = "",
        status: String = "active",
        recorded: Date? = nil,
        system: String = ""
    ) {
        self.system = system
        self.substance = substance
        self.code = code
        self.criticality = criticality
        self.category = category
        self.status = status
        self.recorded = recorded
    }
}
