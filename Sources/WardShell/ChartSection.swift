import WardCore

/// A part of an open chart that `show` prints.
///
/// `summary` is demographics (and, for a full chart, how many entries each section holds): the
/// only section a clerk or an auditor may see. Every other section is clinical and is shown to
/// clinicians only; for the other roles it is never even loaded (`ChartContents.demographics`).
///
/// The one list of sections: `show`'s parsing, its help, Tab completion and the summary's
/// counts all read `allCases`, so a section added here is offered everywhere.
public enum ChartSection: String, CaseIterable, Sendable {
    case summary, allergies, meds, problems, vitals, labs, social, surveys, immunizations, procedures
    case careplans, reports, encounters, notes

    /// The roles that may see this section.
    public var allowedRoles: Set<Role> {
        self == .summary ? Shell.everyRole : Shell.clinicalRoles
    }

    /// What the section's rows are, in a sentence: "No care plans in this chart."
    var noun: String {
        switch self {
        case .summary: "summary"
        case .meds: "medications"
        case .social: "social history"
        case .careplans: "care plans"
        case .reports: "diagnostic reports"
        default: rawValue
        }
    }

    /// The section's field in the summary: "Care plans".
    var summaryLabel: String {
        let noun = self == .reports ? "reports" : self.noun
        return noun.prefix(1).uppercased() + noun.dropFirst()
    }

    /// The section's line in `help show`.
    var help: String {
        switch self {
        case .summary: "Demographics, and how many entries each section holds (every role)."
        case .allergies: "Allergies and intolerances: substance, category, criticality, status."
        case .meds: "Medication orders: medication, dosage, status, when authored."
        case .problems: "The problem list: condition, status, onset, abatement."
        case .vitals: "Vital signs: height, weight, blood pressure, heart rate."
        case .labs: "Laboratory results."
        case .social: "Social history: smoking, housing, education, employment."
        case .surveys: "Survey and questionnaire answers and scores (PHQ-2, GAD-7, PRAPARE)."
        case .immunizations: "Vaccines given: vaccine, date, status."
        case .procedures: "Procedures performed: what, when, why."
        case .careplans: "Care plans: category, activities, period, status."
        case .reports: "Diagnostic reports: name, date, the results reported, or the conclusion."
        case .encounters: "Visits: start, class, type, reason."
        case .notes: "Notes written in Ward, each in full."
        }
    }
}
