import WardCore
import WardRecords

/// How a patient is named wherever one is meant: by two identifiers, the name and the MRN, so a
/// reader can tell two patients of one name apart and a mistyped MRN shows at once.
enum PatientLabel {
    /// `M1 (Lovelace, Ada Augusta)`: confirmations of writes, the line after an unlock.
    static func full(_ patient: Patient) -> String {
        "\(patient.mrn) (\(name(patient)))"
    }

    /// `O'Brien 475d72ca…`: the prompt's part, the family name and the MRN each cut to fit, so
    /// that `ward [` … `]> ` stays within 40 columns however long either is.
    static func short(_ patient: Patient) -> String {
        let family = patient.family.isEmpty ? name(patient) : patient.family
        return "\(cut(family, to: familyColumns)) \(cut(patient.mrn, to: mrnColumns))"
    }

    /// `Lovelace, Ada`; `(no name)` for a patient imported without one.
    static func name(_ patient: Patient) -> String { name(given: patient.given, family: patient.family) }

    static func name(given: String, family: String) -> String {
        let name = ChartFormat.name(given: given, family: family)
        return name.isEmpty ? noName : name
    }

    /// A birth date, or `(unknown)` for a patient imported without one.
    static func born(_ birthDate: String) -> String { birthDate.isEmpty ? unknown : birthDate }

    /// What stands for a name a record does not have.
    static let noName = "(no name)"
    /// What stands for a birth date a record does not have.
    static let unknown = "(unknown)"

    /// The columns the prompt gives each part: `ward [` 6, a space, `]> ` 3, so 16 + 1 + 12 in 40.
    static let familyColumns = 16
    static let mrnColumns = 12

    /// `text` as it will be shown (escaped), cut to `columns` with `…` when longer. Measured
    /// escaped, because the prompt is escaped before it is shown; cut before escaping, so that an
    /// escape is never cut in half.
    static func cut(_ text: String, to columns: Int) -> String {
        guard DisplayWidth.of(Sanitizer.line(text)) > columns else { return text }
        var kept = ""
        var width = 0
        for character in text {
            let columnsOfCharacter = DisplayWidth.of(Sanitizer.line(String(character)))
            if width + columnsOfCharacter > columns - 1 { break }
            kept.append(character)
            width += columnsOfCharacter
        }
        return kept + "…"
    }
}
