import FoundationEssentials

/// A medication order (FHIR MedicationRequest).
public struct Medication: Sendable, Equatable {
    /// RxNorm code, or empty.
    public var code: String
    public var display: String
    /// `active`, `stopped`, `completed`, …, or empty.
    public var status: String
    /// Free-text dosage instruction, or empty.
    public var dosage: String
    public var authored: Date?

    /// The code's system (`http://loinc.org`, `http://snomed.info/sct`, …), or empty: rows
    /// imported before Ward kept it (migration 4) have none.
    public var system: String

    public init(
        code: String,
        display: String,
        status: String = "active",
        dosage: String = "",
        authored: Date? = nil,
        system: String = ""
    ) {
        self.system = system
        self.code = code
        self.display = display
        self.status = status
        self.dosage = dosage
        self.authored = authored
    }
}
