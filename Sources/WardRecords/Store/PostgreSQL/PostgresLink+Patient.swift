import PostgresNIO

extension PostgresLink {
    /// Adds a patient with its name-search rows, and returns its row id: the one INSERT of a
    /// patient, whether it comes from an import (`PostgresImportTarget`) or a whole chart
    /// (`PostgresRecordStore.add`).
    ///
    /// `name_words` and `patient_name_token` hold the same words (`PostgresSchema`), those
    /// `NameWords.indexed(given:family:)` gives, as SQLite's `name_words` does.
    func insertPatient(_ patient: Patient, fhirID: String?) throws -> Int64 {
        let p = patient
        let words = NameWords.indexed(given: p.given, family: p.family)
        let inserted = try query(
            """
            INSERT INTO patient (mrn, fhir_id, given, family, birth_date, sex, phone, address, restricted, name_words)
            VALUES (\(p.mrn), \(fhirID), \(p.given), \(p.family), \(p.birthDate), \(p.sex.rawValue), \(p.phone),
                \(p.address), \(p.restricted), \(words)::text[])
            RETURNING id
            """
        )
        let id = try Self.decoded { try inserted.first!.decode(Int64.self) }
        try insertNameTokens(words, patient: id)
        return id
    }

    /// Replaces a stored patient's demographics and name words, keeping its id; the caller
    /// has removed its `patient_name_token` rows.
    func updatePatient(_ id: Int64, to patient: Patient, fhirID: String?) throws {
        let p = patient
        let words = NameWords.indexed(given: p.given, family: p.family)
        try query(
            """
            UPDATE patient SET mrn = \(p.mrn), fhir_id = \(fhirID), given = \(p.given), family = \(p.family),
                birth_date = \(p.birthDate), sex = \(p.sex.rawValue), phone = \(p.phone), address = \(p.address),
                restricted = \(p.restricted), name_words = \(words)::text[]
            WHERE id = \(id)
            """
        )
        try insertNameTokens(words, patient: id)
    }

    private func insertNameTokens(_ words: [String], patient id: Int64) throws {
        guard !words.isEmpty else { return }
        try query("INSERT INTO patient_name_token (token, patient_id) SELECT unnest(\(words)::text[]), \(id)")
    }
}
