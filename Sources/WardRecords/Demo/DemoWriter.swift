/// The demo generator's prepared INSERTs, one per table, made once per batch transaction.
final class DemoWriter {
    let patient: BulkStatement
    let allergy: BulkStatement
    let problem: BulkStatement
    let medication: BulkStatement
    let observation: BulkStatement
    let encounter: BulkStatement
    let note: BulkStatement

    init(_ db: SQLiteConnection) throws {
        patient = try BulkStatement(
            db,
            sql: """
                INSERT INTO patient (id, mrn, given, family, birth_date, sex, phone, address, restricted)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """
        )
        allergy = try BulkStatement(
            db,
            sql: """
                INSERT INTO allergy (patient_id, substance, code, criticality, category, status, recorded)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """
        )
        problem = try BulkStatement(
            db,
            sql: "INSERT INTO problem (patient_id, code, display, status, onset, abated) VALUES (?, ?, ?, ?, ?, ?)"
        )
        medication = try BulkStatement(
            db,
            sql:
                "INSERT INTO medication (patient_id, code, display, status, dosage, authored) VALUES (?, ?, ?, ?, ?, ?)"
        )
        observation = try BulkStatement(
            db,
            sql: "INSERT INTO observation (id, code_id, value, time) VALUES (?, ?, ?, ?)"
        )
        encounter = try BulkStatement(
            db,
            sql: #"INSERT INTO encounter (patient_id, kind, display, reason, start, "end") VALUES (?, ?, ?, ?, ?, ?)"#
        )
        note = try BulkStatement(db, sql: "INSERT INTO note (patient_id, author, time, text) VALUES (?, ?, ?, ?)")
    }
}
