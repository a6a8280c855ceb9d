import Foundation

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

    public init(code: String, display: String, status: String = "active", dosage: String = "", authored: Date? = nil) {
        self.code = code
        self.display = display
        self.status = status
        self.dosage = dosage
        self.authored = authored
    }
}
