/// Administrative sex as FHIR R4 codes it (`Patient.gender`).
public enum Sex: String, Sendable, CaseIterable {
    case female, male, other, unknown
}
