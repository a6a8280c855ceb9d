import FoundationEssentials

/// A vital sign, lab result or other measurement (FHIR Observation, one row per component).
public struct Observation: Sendable, Equatable {
    /// What kind of measurement: the shell's `show vitals`, `labs`, `social` and `surveys`
    /// split on this (FHIR's observation-category codes; any other code is `other`).
    public enum Category: String, Sendable, CaseIterable {
        case vitalSigns = "vital-signs"
        case laboratory
        /// Smoking, housing, education: Synthea writes these as `social-history`.
        case socialHistory = "social-history"
        /// Questionnaire scores and answers (PHQ-2, GAD-7, PRAPARE).
        case survey
        case other
    }

    /// The LOINC code.
    public var code: String
    public var display: String
    public var category: Category
    /// The numeric value, when the observation has a quantity.
    public var value: Double?
    /// The value as text when it is not a number (a coded or string result).
    public var text: String?
    /// UCUM unit of `value`, or empty.
    public var unit: String
    public var time: Date

    /// The code's system (`http://loinc.org`, `http://snomed.info/sct`, …), or empty: rows
    /// imported before Ward kept it (migration 4) have none.
    public var system: String

    public init(
        code: String,
        display: String,
        category: Category,
        value: Double? = nil,
        text: String? = nil,
        unit: String = "",
        time: Date,
        system: String = ""
    ) {
        self.system = system
        self.code = code
        self.display = display
        self.category = category
        self.value = value
        self.text = text
        self.unit = unit
        self.time = time
    }
}
