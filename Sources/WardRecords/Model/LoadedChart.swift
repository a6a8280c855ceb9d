import WardCore

/// One patient's whole chart, loaded for the signed-on user; the shell's `open` holds it.
///
/// A class, not a struct, because the session's lock must reach the one copy the shell holds and
/// empty it in place (`Wipeable` is class-bound): a struct copy made somewhere would survive the
/// wipe unseen.
///
/// Wipe replaces every stored property with an empty value. Swift strings are immutable and
/// shared by copy-on-write, so they cannot be safely overwritten where they lie (a copy the shell
/// keeps, say as a dictionary key, would be corrupted under it). Instead the assignments overwrite
/// the inline bytes held in this object (short strings live there), and the last release of each
/// heap buffer goes through the executable's scrubbing `free`, which zeroes it.
///
/// - Important: not `Sendable`: it belongs to the loop thread, which both renders and wipes it.
public final class LoadedChart: Wipeable {
    public private(set) var patient: Patient
    public private(set) var allergies: [Allergy]
    public private(set) var problems: [Problem]
    public private(set) var medications: [Medication]
    /// Oldest first.
    public private(set) var observations: [Observation]
    /// Oldest first.
    public private(set) var encounters: [Encounter]
    /// Oldest first.
    public private(set) var notes: [Note]
    /// Oldest first.
    public private(set) var immunizations: [Immunization]
    /// Oldest first.
    public private(set) var procedures: [Procedure]
    /// Oldest first.
    public private(set) var carePlans: [CarePlan]
    /// Oldest first.
    public private(set) var reports: [DiagnosticReport]
    /// True once `wipe()` ran: the chart then holds nothing and must not be shown.
    public private(set) var isWiped = false

    public init(
        patient: Patient,
        allergies: [Allergy] = [],
        problems: [Problem] = [],
        medications: [Medication] = [],
        observations: [Observation] = [],
        encounters: [Encounter] = [],
        notes: [Note] = [],
        immunizations: [Immunization] = [],
        procedures: [Procedure] = [],
        carePlans: [CarePlan] = [],
        reports: [DiagnosticReport] = []
    ) {
        self.patient = patient
        self.allergies = allergies
        self.problems = problems
        self.medications = medications
        self.observations = observations
        self.encounters = encounters
        self.notes = notes
        self.immunizations = immunizations
        self.procedures = procedures
        self.carePlans = carePlans
        self.reports = reports
    }

    /// The MRN, kept readable for the prompt and audit records until the wipe.
    public var mrn: String { patient.mrn }

    /// Vital signs only, oldest first (`show vitals`).
    public var vitals: [Observation] { observations.filter { $0.category == .vitalSigns } }

    /// Laboratory results only, oldest first (`show labs`).
    public var labs: [Observation] { observations.filter { $0.category == .laboratory } }

    /// Social history only (smoking, housing), oldest first (`show social`).
    public var socialHistory: [Observation] { observations.filter { $0.category == .socialHistory } }

    /// Survey answers and scores only, oldest first (`show surveys`).
    public var surveys: [Observation] { observations.filter { $0.category == .survey } }

    /// Adds a note the store has just saved, so the open chart shows it without a reload.
    public func append(_ note: Note) {
        guard !isWiped else { return }
        notes.append(note)
    }

    public func wipe() {
        patient = .empty
        allergies = []
        problems = []
        medications = []
        observations = []
        encounters = []
        notes = []
        immunizations = []
        procedures = []
        carePlans = []
        reports = []
        isWiped = true
    }
}
