/// `BundleWriter`'s statements on the embedded store, inside the caller's write transaction.
///
/// Text is bound with its length (`SQLiteValue.text`), so a name holding U+0000 is stored whole.
final class SQLiteImportTarget: ImportTarget {
    let db: SQLiteConnection
    /// Each table's INSERT, made once: the connection caches the prepared statement by its text.
    private var inserts: [ImportRow.Table: String] = [:]

    init(db: SQLiteConnection) {
        self.db = db
    }

    func patient(mrn: String) throws -> (id: Int64, fhirID: String?)? {
        // `mrn` is unique without case (COLLATE NOCASE): at most one row.
        var found: (id: Int64, fhirID: String?)?
        try db.eachRow("SELECT id, fhir_id FROM patient WHERE mrn = ?", [.text(mrn)]) { row in
            if found == nil { found = (row.int64(0), row.optionalText(1)) }
        }
        return found
    }

    func mrn(fhirID: String) throws -> String? {
        try db.fetchOne("SELECT mrn FROM patient WHERE fhir_id = ? ORDER BY id LIMIT 1", [.text(fhirID)])
    }

    func patientID(fhirID: String) throws -> Int64? {
        try db.fetchOne("SELECT id FROM patient WHERE fhir_id = ? ORDER BY id LIMIT 1", [.text(fhirID)])
    }

    func insert(_ imported: FHIRBundle.ImportedPatient) throws -> Int64 {
        try db.execute(
            """
            INSERT INTO patient (mrn, fhir_id, given, family, birth_date, sex, phone, address, restricted, name_words)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            Self.values(imported)
        )
        return db.lastInsertedRowID
    }

    func refresh(_ id: Int64, with imported: FHIRBundle.ImportedPatient) throws {
        try db.execute(
            """
            UPDATE patient SET mrn = ?, fhir_id = ?, given = ?, family = ?, birth_date = ?, sex = ?, phone = ?,
                address = ?, restricted = ?, name_words = ?
            WHERE id = ?
            """,
            Self.values(imported) + [.integer(id)]
        )
        for table in RecordsLayout.importedTables {
            try db.execute("DELETE FROM \(table) WHERE patient_id = ?", [.integer(id)])
        }
        let observations = RecordsLayout.observationIDs(patient: id)
        try db.execute(
            "DELETE FROM observation WHERE id BETWEEN ? AND ?",
            [.integer(observations.lowerBound), .integer(observations.upperBound)]
        )
    }

    private static func values(_ imported: FHIRBundle.ImportedPatient) -> [SQLiteValue] {
        let patient = imported.patient
        return [
            .text(patient.mrn), .optional(imported.fhirID), .text(patient.given), .text(patient.family),
            .text(patient.birthDate), .text(patient.sex.rawValue), .text(patient.phone), .text(patient.address),
            .bool(patient.restricted), .text(NameWords.column(given: patient.given, family: patient.family)),
        ]
    }

    func lastObservationID(in range: ClosedRange<Int64>) throws -> Int64? {
        try db.fetchOne(
            "SELECT max(id) FROM observation WHERE id BETWEEN ? AND ?",
            [.integer(range.lowerBound), .integer(range.upperBound)]
        )
    }

    func codeID(_ observation: Observation) throws -> Int64 {
        let arguments: [SQLiteValue] = [
            .text(observation.code), .text(observation.display), .text(observation.unit),
            .text(observation.category.rawValue),
        ]
        try db.execute(
            """
            INSERT INTO observation_code (code, display, unit, category, system) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (code, display, unit, category) DO NOTHING
            """,
            arguments + [.text(observation.system)]
        )
        return try db.fetchOne(
            "SELECT id FROM observation_code WHERE code = ? AND display = ? AND unit = ? AND category = ?",
            arguments
        )!
    }

    func add(_ row: ImportRow) throws {
        let sql = inserts[row.table] ?? Self.insert(row)
        inserts[row.table] = sql
        var arguments: [SQLiteValue] = []
        arguments.reserveCapacity(row.values.count)
        for value in row.values {
            switch value {
            case .text(let text): arguments.append(.text(text))
            case .optionalText(let text): arguments.append(.optional(text))
            case .integer(let number): arguments.append(.optional(number))
            case .real(let number): arguments.append(number.map { .real($0) } ?? .null)
            }
        }
        try db.statement(sql).run(arguments)
    }

    func finish() throws {}

    /// `INSERT INTO table (columns) VALUES (?, …)`.
    private static func insert(_ row: ImportRow) -> String {
        let columns = row.table.columns.map { "\"\($0)\"" }.joined(separator: ", ")
        let values = Array(repeating: "?", count: row.values.count).joined(separator: ", ")
        return "INSERT INTO \(row.table.name) (\(columns)) VALUES (\(values))"
    }
}
