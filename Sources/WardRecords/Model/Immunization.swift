import FoundationEssentials

/// A vaccine given (FHIR Immunization).
public struct Immunization: Sendable, Equatable {
    /// The CVX code, or empty.
    public var code: String
    /// The vaccine, as its code's display text.
    public var vaccine: String
    /// `completed`, `entered-in-error`, `not-done`, or empty.
    public var status: String
    public var date: Date?

    /// The code's system (`http://loinc.org`, `http://snomed.info/sct`, …), or empty: rows
    /// imported before Ward kept it (migration 4) have none.
    public var system: String

    public init(
        code: String = "",
        vaccine: String,
        status: String = "completed",
        date: Date? = nil,
        system: String = ""
    ) {
        self.system = system
        self.code = code
        self.vaccine = vaccine
        self.status = status
        self.date = date
    }
}
