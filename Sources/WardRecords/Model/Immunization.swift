import Foundation

/// A vaccine given (FHIR Immunization).
public struct Immunization: Sendable, Equatable {
    /// The CVX code, or empty.
    public var code: String
    /// The vaccine, as its code's display text.
    public var vaccine: String
    /// `completed`, `entered-in-error`, `not-done`, or empty.
    public var status: String
    public var date: Date?

    public init(code: String = "", vaccine: String, status: String = "completed", date: Date? = nil) {
        self.code = code
        self.vaccine = vaccine
        self.status = status
        self.date = date
    }
}
