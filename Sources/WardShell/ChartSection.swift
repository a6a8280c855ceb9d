import WardCore

/// A part of an open chart that `show` prints.
///
/// `summary` is demographics (and, for a full chart, how many entries each section holds): the
/// only section a clerk or an auditor may see. Every other section is clinical and is shown to
/// clinicians only; for the other roles it is never even loaded (`ChartContents.demographics`).
public enum ChartSection: String, CaseIterable, Sendable {
    case summary, allergies, meds, problems, vitals, labs, notes, encounters

    /// The roles that may see this section.
    public var allowedRoles: Set<Role> {
        self == .summary ? Shell.everyRole : Shell.clinicalRoles
    }
}
