import Foundation

/// Records under the names and codes a real Synthea export writes (`Hemoglobin A1c/Hemoglobin.total
/// in Blood`, LOINC 4548-4), and reports whose text is a `presentedForm` attachment: what a
/// clinician's typed `hba1c` and the typed JSON are tested against.
extension Bundles {
    /// A real export's common labs and vitals: (LOINC code, name, category, value, unit).
    public static let realMeasurements:
        [(code: String, display: String, category: String, value: Double, unit: String)] =
            [
                ("4548-4", "Hemoglobin A1c/Hemoglobin.total in Blood", "laboratory", 6.1, "%"),
                ("2339-0", "Glucose [Mass/volume] in Blood", "laboratory", 88.5, "mg/dL"),
                ("18262-6", "Low Density Lipoprotein Cholesterol", "laboratory", 121, "mg/dL"),
                ("2085-9", "Cholesterol in HDL [Mass/volume] in Serum or Plasma", "laboratory", 54, "mg/dL"),
                ("718-7", "Hemoglobin [Mass/volume] in Blood", "laboratory", 13.9, "g/dL"),
                ("6690-2", "Leukocytes [#/volume] in Blood by Automated count", "laboratory", 7.2, "10*3/uL"),
                (
                    "33914-3",
                    "Glomerular filtration rate/1.73 sq M.predicted [Volume Rate/Area] in Serum, Plasma or Blood by "
                        + "Creatinine-based formula (MDRD)",
                    "laboratory", 72, "mL/min/{1.73_m2}"
                ),
                ("39156-5", "Body mass index (BMI) [Ratio]", "vital-signs", 27.4, "kg/m2"),
                ("29463-7", "Body Weight", "vital-signs", 80.2, "kg"),
            ]

    /// `realMeasurements` for `patient`, taken at `effective`.
    public static func realMeasurements(
        _ patient: String,
        effective: String = "2020-01-02T03:04:05Z"
    ) -> [[String: Any]] {
        realMeasurements.map {
            observation(
                patient,
                category: $0.category,
                code: $0.code,
                display: $0.display,
                value: $0.value,
                unit: $0.unit,
                effective: effective
            )
        }
    }

    /// A report with no result and no conclusion, only a presented form, as Synthea writes a
    /// clinical note (LOINC 34117-2): `data` is written as given (base64 for a real one).
    public static func presentedReport(
        _ patient: String,
        name: String = "History and physical note",
        contentType: String,
        data: String? = nil,
        title: String? = nil,
        size: Int? = nil
    ) -> [String: Any] {
        var attachment: [String: Any] = ["contentType": contentType]
        if let data { attachment["data"] = data }
        if let title { attachment["title"] = title }
        if let size { attachment["size"] = size }
        return [
            "resource": [
                "resourceType": "DiagnosticReport", "status": "final",
                "code": ["coding": [["system": "http://loinc.org", "code": "34117-2", "display": name]]],
                "subject": ["reference": "urn:uuid:\(patient)"],
                "effectiveDateTime": "2020-01-02T03:04:05Z",
                "presentedForm": [attachment],
            ]
        ]
    }
}
