/// One row of a `find` answer: enough to choose a chart, nothing clinical. Only a store's search
/// makes one (the memberwise initializer is internal).
public struct PatientMatch: Sendable, Equatable {
    public var mrn: String
    public var given: String
    public var family: String
    public var birthDate: String
    public var sex: Sex
    public var restricted: Bool
    /// How well this row matched; higher is better. See `PatientSearch` for the scale.
    public var score: Int
}
