/// What a clinician types for a common test or vital, and the rows it means: `show labs hba1c`
/// must find "Hemoglobin A1c/Hemoglobin.total in Blood", whose name holds no "hba1c".
///
/// Each abbreviation (in `RowFilter`'s normal form: lower case, letters and digits only) names
/// LOINC codes and words of the name (in the same form); a row matches when its code is one of
/// the codes or its name holds one of the words. The codes are the ones Synthea and most US labs
/// write; the words catch the same test under a code not listed. A short table, kept in step
/// with man/ward.1 (FILTERS): a term missing here still matches the name and the code as typed.
enum ClinicalAbbreviations {
    struct Meaning: Sendable {
        var codes: Set<String>
        var words: [String]
    }

    static let table: [String: Meaning] = {
        let hba1c = Meaning(codes: ["4548-4", "17856-6", "4549-2", "41995-2"], words: ["hemoglobina1c"])
        let bp = Meaning(codes: ["85354-9", "55284-4", "8480-6", "8462-4"], words: ["bloodpressure"])
        let hb = Meaning(codes: ["718-7", "30313-1", "20509-6"], words: [])
        let spo2 = Meaning(codes: ["2708-6", "59408-5"], words: ["oxygensaturation"])
        return [
            "hba1c": hba1c, "a1c": hba1c,
            "bmi": Meaning(codes: ["39156-5"], words: ["bodymassindex"]),
            "bp": bp,
            "sbp": Meaning(codes: ["8480-6"], words: ["systolicbloodpressure"]),
            "dbp": Meaning(codes: ["8462-4"], words: ["diastolicbloodpressure"]),
            "ldl": Meaning(codes: ["18262-6", "13457-7", "2089-1"], words: ["lowdensitylipoprotein"]),
            "hdl": Meaning(codes: ["2085-9"], words: ["highdensitylipoprotein"]),
            "egfr": Meaning(
                codes: ["33914-3", "48643-1", "48642-3", "62238-1", "98979-8", "69405-9"],
                words: ["glomerularfiltrationrate"]
            ),
            "hb": hb, "hgb": hb,
            "wbc": Meaning(codes: ["6690-2", "26464-8"], words: ["leukocytes"]),
            "rbc": Meaning(codes: ["789-8", "26453-1"], words: ["erythrocytes"]),
            "plt": Meaning(codes: ["777-3", "26515-7"], words: ["platelets"]),
            "hr": Meaning(codes: ["8867-4"], words: ["heartrate"]),
            "rr": Meaning(codes: ["9279-1"], words: ["respiratoryrate"]),
            "temp": Meaning(codes: ["8310-5", "8331-1"], words: ["bodytemperature"]),
            "spo2": spo2, "sao2": spo2,
            "tsh": Meaning(codes: ["3016-3", "11580-8"], words: ["thyrotropin"]),
            "bun": Meaning(codes: ["3094-0", "6299-2"], words: ["ureanitrogen"]),
            "cr": Meaning(codes: ["2160-0", "38483-4"], words: ["creatinine"]),
            "k": Meaning(codes: ["2823-3", "6298-4"], words: ["potassium"]),
            "na": Meaning(codes: ["2951-2", "2947-0"], words: ["sodium"]),
            "tg": Meaning(codes: ["2571-8"], words: ["triglyceride"]),
            "chol": Meaning(codes: ["2093-3"], words: ["cholesterol"]),
        ]
    }()

    /// What `word` (in normal form) stands for, when it is in the table.
    static func meaning(of word: String) -> Meaning? { table[word] }
}
