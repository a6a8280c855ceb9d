/// Why a bundle's Patient may not be written: writing it would overwrite or merge another patient.
///
/// A patient is the same patient only when both its FHIR id and its MRN match what is stored;
/// then a re-import refreshes it. One without the other is another person's chart, or the same
/// person under two numbers: either way a clerk has to look, and Ward imports nothing of the
/// bundle. Values are hostile text and are quoted escaped (`quotedForMessage`).
public enum PatientClash: Error, Equatable, Sendable, CustomStringConvertible {
    /// Two Patients of one bundle have this FHIR id (or this `fullUrl` / `Patient/id` key).
    case sameIDInBundle(id: String)
    /// Two Patients of one bundle, with these ids, have this MRN (compared without case).
    case sameMRNInBundle(mrn: String, firstID: String, secondID: String)
    /// The bundle's Patient `bundleID` has an MRN a stored patient holds under another FHIR id
    /// (nil: a patient typed in or generated, with no FHIR id).
    case mrnHeldByOtherPatient(mrn: String, bundleID: String, storedID: String?)
    /// The bundle's Patient has the FHIR id of a stored patient whose MRN is another.
    case idHeldWithOtherMRN(id: String, mrn: String, storedMRN: String)

    public var description: String {
        let rule = "a patient is refreshed only when both its id and its MRN match"
        switch self {
        case .sameIDInBundle(let id):
            return "two Patients in this bundle have the id \(id.quotedForMessage)"
        case .sameMRNInBundle(let mrn, let first, let second):
            return "the Patients \(first.quotedForMessage) and \(second.quotedForMessage) in this bundle have the "
                + "same MRN \(mrn.quotedForMessage)"
        case .mrnHeldByOtherPatient(let mrn, let bundleID, let storedID):
            let stored =
                storedID.map { "the stored patient \($0.quotedForMessage)" } ?? "a stored patient with no FHIR id"
            return "Patient \(bundleID.quotedForMessage) has the MRN \(mrn.quotedForMessage), which \(stored) "
                + "holds; \(rule)"
        case .idHeldWithOtherMRN(let id, let mrn, let storedMRN):
            return "Patient \(id.quotedForMessage) has the MRN \(mrn.quotedForMessage), but the stored patient "
                + "with that id has the MRN \(storedMRN.quotedForMessage); \(rule)"
        }
    }
}
