import FoundationEssentials

/// A visit (FHIR Encounter).
public struct Encounter: Sendable, Equatable {
    /// The encounter class code: `AMB`, `EMER`, `IMP`, `VR`, ….
    public var kind: String
    /// What the visit was, as the type's display text.
    public var display: String
    /// Why, as the reason's display text, or empty.
    public var reason: String
    public var start: Date
    public var end: Date?

    public init(kind: String, display: String, reason: String = "", start: Date, end: Date? = nil) {
        self.kind = kind
        self.display = display
        self.reason = reason
        self.start = start
        self.end = end
    }
}
