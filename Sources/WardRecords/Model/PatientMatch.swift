/// One row of a `find` answer: enough to choose a chart, nothing clinical.
public struct PatientMatch: Sendable, Equatable {
    public var mrn: String
    public var given: String
    public var family: String
    public var birthDate: String
    public var sex: Sex
    public var restricted: Bool
    /// How well this row matched; higher is better. See `PatientSearch` for the scale.
    public var score: Int

    public init(
        mrn: String,
        given: String,
        family: String,
        birthDate: String,
        sex: Sex,
        restricted: Bool,
        score: Int
    ) {
        self.mrn = mrn
        self.given = given
        self.family = family
        self.birthDate = birthDate
        self.sex = sex
        self.restricted = restricted
        self.score = score
    }
}
