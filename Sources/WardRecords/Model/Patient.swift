import FoundationEssentials

/// One patient's demographics: the part of a chart a clerk may see.
///
/// A value type so a `LoadedChart` can drop it whole on wipe; nothing here is logged.
public struct Patient: Sendable, Equatable {
    /// The medical record number: the one key users type (`open MRN`) and audit records name.
    public var mrn: String
    /// Given names, space-separated, as written (FHIR `name.given`).
    public var given: String
    public var family: String
    /// `YYYY-MM-DD`, or empty when unknown. Kept as text: a birth date has no time zone.
    public var birthDate: String
    public var sex: Sex
    public var phone: String
    /// One line: street, city, state, postal code.
    public var address: String
    /// Opening this chart needs a stated reason first (break the glass).
    public var restricted: Bool

    public init(
        mrn: String,
        given: String,
        family: String,
        birthDate: String,
        sex: Sex,
        phone: String = "",
        address: String = "",
        restricted: Bool = false
    ) {
        self.mrn = mrn
        self.given = given
        self.family = family
        self.birthDate = birthDate
        self.sex = sex
        self.phone = phone
        self.address = address
        self.restricted = restricted
    }

    /// An empty patient: what a wiped chart holds in place of the real one.
    public static let empty = Patient(mrn: "", given: "", family: "", birthDate: "", sex: .unknown)
}
