import Foundation

/// A problem-list entry (FHIR Condition).
public struct Problem: Sendable, Equatable {
    /// SNOMED CT code, or empty.
    public var code: String
    public var display: String
    /// `active`, `resolved`, `inactive`, …, or empty.
    public var status: String
    public var onset: Date?
    public var abated: Date?

    public init(code: String, display: String, status: String = "active", onset: Date? = nil, abated: Date? = nil) {
        self.code = code
        self.display = display
        self.status = status
        self.onset = onset
        self.abated = abated
    }
}
