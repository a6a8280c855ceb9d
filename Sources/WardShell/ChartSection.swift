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

    /// What a typed section word names.
    enum Lookup: Equatable {
        /// The section's name, or a prefix of exactly one section's name (`al`: allergies).
        case found(ChartSection)
        /// A prefix of several names (`s`): the candidates, in `allCases` order.
        case ambiguous([ChartSection])
        /// Not a name nor a prefix of one; the nearest name, when one is near enough.
        case unknown(nearest: ChartSection?)
    }

    /// Reads a typed word: exact names first, then unique prefixes, then "did you mean".
    static func lookUp(_ word: String) -> Lookup {
        if let section = ChartSection(rawValue: word) { return .found(section) }
        let names = allCases.map(\.rawValue)
        let candidates = Suggestion.completing(word, in: names).compactMap(ChartSection.init(rawValue:))
        switch candidates.count {
        case 1: return .found(candidates[0])
        case 0: return .unknown(nearest: Suggestion.nearest(word, in: names).flatMap(ChartSection.init(rawValue:)))
        default: return .ambiguous(candidates)
        }
    }

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

    /// The statuses a word after this section keeps (`show meds active`), by the word as
    /// `RowFilter` reads it (letters and digits, lower case): FHIR's codes for the section's
    /// resource, `active` taking in a problem's recurrence and relapse. Empty for a section
    /// whose rows have no status: its words match names and codes only.
    var statuses: [String: Set<String>] {
        switch self {
        case .problems:
            [
                "active": ["active", "recurrence", "relapse"], "recurrence": ["recurrence"], "relapse": ["relapse"],
                "inactive": ["inactive", "remission", "resolved"], "remission": ["remission"],
                "resolved": ["resolved"],
            ]
        case .meds:
            [
                "active": ["active"], "onhold": ["on-hold"], "cancelled": ["cancelled"], "completed": ["completed"],
                "stopped": ["stopped"], "draft": ["draft"], "enteredinerror": ["entered-in-error"],
            ]
        case .allergies:
            ["active": ["active"], "inactive": ["inactive"], "resolved": ["resolved"]]
        default:
            [:]
        }
    }

    /// Whether a row of this section with `status` belongs on the cover sheet (`show`): an
    /// active problem or medication; an allergy unless it is known to be over, since one whose
    /// record gives no status may still hold.
    func isActive(_ status: String) -> Bool {
        switch self {
        case .allergies: !["inactive", "resolved", "entered-in-error"].contains(status)
        default: statuses["active"]?.contains(status) ?? false
        }
    }

    /// The section's line in `help show`.
    var help: String {
        switch self {
        case .summary:
            "Demographics with the age (every role); the active problems, medications and allergies, and how many"
                + " entries each section holds."
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
        case .reports: "Diagnostic reports: name, date, the results reported, or the conclusion or note."
        case .encounters: "Visits: start, class, type, reason."
        case .notes: "Notes written in Ward, each in full."
        }
    }
}
