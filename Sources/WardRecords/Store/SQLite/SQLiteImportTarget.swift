import Foundation
import GRDB

/// `BundleWriter`'s statements on the embedded store, inside the caller's write transaction.
///
/// Text goes through `storable(_:)` and `CAST(? AS TEXT)`: GRDB binds a Swift string as a C
/// string, which SQLite cuts at the first U+0000 (a name `"nul\u0000byte"` was stored as `nul`).
final class SQLiteImportTarget: ImportTarget {
    let db: Database
    /// Each table's INSERT, made once: GRDB caches the prepared statement by its text.
    private var inserts: [ImportRow.Table: String] = [:]

    init(db: Database) {
        self.db = db
    }

    func patient(mrn: String) throws -> (id: Int64, fhirID: String?)? {
        // `mrn` is unique without case (COLLATE NOCASE): at most one row.
        guard
            let row = try Row.fetchOne(
                db.cachedStatement(sql: "SELECT id, fhir_id FROM patient WHERE mrn = ?"),
                arguments: [mrn]
            )
        else { return nil }
        return (row[0], row[1])
    }

    func mrn(fhirID: String) throws -> String? {
        try String.fetchOne(
            db.cachedStatement(sql: "SELECT mrn FROM patient WHERE fhir_id = ? ORDER BY id LIMIT 1"),
            arguments: [fhirID]
        )
    }

    func patientID(fhirID: String) throws -> Int64? {
        try Int64.fetchOne(
            db.cachedStatement(sql: "SELECT id FROM patient WHERE fhir_id = ? ORDER BY id LIMIT 1"),
            arguments: [fhirID]
        )
    }

    func insert(_ imported: FHIRBundle.ImportedPatient) throws -> Int64 {
        try db.execute(
            sql: """
                INSERT INTO patient (mrn, fhir_id, given, family, birth_date, sex, phone, address, restricted, name_words)
                VALUES (?, ?, CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), ?, CAST(? AS TEXT),
                    CAST(? AS TEXT), ?, ?)
                """,
            arguments: Self.values(imported)
        )
        return db.lastInsertedRowID
    }

    func refresh(_ id: Int64, with imported: FHIRBundle.ImportedPatient) throws {
        try db.execute(
            sql: """
                UPDATE patient SET mrn = ?, fhir_id = ?, given = CAST(? AS TEXT), family = CAST(? AS TEXT),
                    birth_date = CAST(? AS TEXT), sex = ?, phone = CAST(? AS TEXT), address = CAST(? AS TEXT),
                    restricted = ?, name_words = ?
                WHERE id = ?
                """,
            arguments: Self.values(imported) + [id]
        )
        for table in RecordsLayout.importedTables {
            try db.execute(sql: "DELETE FROM \(table) WHERE patient_id = ?", arguments: [id])
        }
        let observations = RecordsLayout.observationIDs(patient: id)
        try db.execute(
            sql: "DELETE FROM observation WHERE id BETWEEN ? AND ?",
            arguments: [observations.lowerBound, observations.upperBound]
        )
    }

    private static func values(_ imported: FHIRBundle.ImportedPatient) -> StatementArguments {
        let patient = imported.patient
        return [
            patient.mrn, imported.fhirID, storable(patient.given), storable(patient.family),
            storable(patient.birthDate), patient.sex.rawValue, storable(patient.phone), storable(patient.address),
            patient.restricted, NameWords.column(given: patient.given, family: patient.family),
        ]
    }

    func lastObservationID(in range: ClosedRange<Int64>) throws -> Int64? {
        try Int64.fetchOne(
            db.cachedStatement(sql: "SELECT max(id) FROM observation WHERE id BETWEEN ? AND ?"),
            arguments: [range.lowerBound, range.upperBound]
        )
    }

    func codeID(_ observation: Observation) throws -> Int64 {
        let arguments: StatementArguments = [
            storable(observation.code), storable(observation.display), storable(observation.unit),
            observation.category.rawValue,
        ]
        try db.execute(
            sql: """
                INSERT INTO observation_code (code, display, unit, category, system)
                VALUES (CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), ?, CAST(? AS TEXT))
                ON CONFLICT (code, display, unit, category) DO NOTHING
                """,
            arguments: arguments + [storable(observation.system)]
        )
        return try Int64.fetchOne(
            db.cachedStatement(
                sql: """
                    SELECT id FROM observation_code
                    WHERE code = CAST(? AS TEXT) AND display = CAST(? AS TEXT) AND unit = CAST(? AS TEXT)
                        AND category = ?
                    """
            ),
            arguments: arguments
        )!
    }

    func add(_ row: ImportRow) throws {
        let sql = inserts[row.table] ?? Self.insert(row)
        inserts[row.table] = sql
        var arguments = StatementArguments()
        for value in row.values {
            switch value {
            case .text(let text): arguments += [storable(text)]
            case .optionalText(let text): arguments += [text.map(storable)]
            case .integer(let number): arguments += [number]
            case .real(let number): arguments += [number]
            }
        }
        try db.cachedStatement(sql: sql).execute(arguments: arguments)
    }

    func finish() throws {}

    /// `INSERT INTO table (columns) VALUES (…)`, text cast from a blob when it holds U+0000.
    private static func insert(_ row: ImportRow) -> String {
        let columns = row.table.columns.map { "\"\($0)\"" }.joined(separator: ", ")
        let values = row.values.map { value in
            switch value {
            case .text, .optionalText: "CAST(? AS TEXT)"
            case .integer, .real: "?"
            }
        }
        return "INSERT INTO \(row.table.name) (\(columns)) VALUES (\(values.joined(separator: ", ")))"
    }
}

/// `text` as a value SQLite stores whole: a string, or, when it holds U+0000, its UTF-8 bytes as
/// a blob that the statement casts back to TEXT (`CAST(? AS TEXT)` keeps every byte).
func storable(_ text: String) -> DatabaseValue {
    text.utf8.contains(0) ? Data(text.utf8).databaseValue : text.databaseValue
}
