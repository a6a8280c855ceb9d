import FoundationEssentials

/// A plan of care (FHIR CarePlan): what it is for, what it asks for, and for how long.
public struct CarePlan: Sendable, Equatable {
    /// What kind of plan, as the display text of its most specific category (Synthea writes a
    /// bare `assess-plan` code first, then the SNOMED CT plan: "Diabetes self management plan").
    public var category: String
    /// The activities' display texts, in the order written.
    public var activities: [String]
    /// `active`, `completed`, `revoked`, …, or empty.
    public var status: String
    public var start: Date?
    public var end: Date?

    public init(
        category: String,
        activities: [String] = [],
        status: String = "active",
        start: Date? = nil,
        end: Date? = nil
    ) {
        self.category = category
        self.activities = activities
        self.status = status
        self.start = start
        self.end = end
    }
}
