import Foundation
import GRDB

/// Writes one bundle, entry by entry, inside the caller's transaction.
///
/// `writePatients` first checks every Patient of the bundle against the store and writes
/// nothing if one clashes (`PatientClash`); then it writes them all, so that entries anywhere
/// in the file can refer to them. `write(_:)` writes one converted entry at a time, as the
/// second pass of `FHIRBundle` streams them: the only state kept between entries is per
/// patient or per code, never per entry.
///
/// Text goes through `storable(_:)` and `CAST(? AS TEXT)`: GRDB binds a Swift string as a C
/// string, which SQLite cuts at the first U+0000 (a name `"nul\u0000byte"` was stored as `nul`).
struct BundleWriter {
    let db: Database
    let bundle: FHIRBundle
    /// Row ids of the bundle's patients, by position in `bundle.patients`.
    private var patientIDs: [Int64] = []
    /// Row ids of patients imported before, by FHIR id, as references find them.
    private var storedIDs: [String: Int64] = [:]
    private var codeIDs: [String: Int64] = [:]
    private var nextObservationID: [Int64: Int64] = [:]
    /// Bounds the code cache: a hostile bundle may give every observation its own code.
    private static let codeCacheLimit = 10_000

    init(db: Database, bundle: FHIRBundle) {
        self.db = db
        self.bundle = bundle
    }

    /// Checks every Patient of the bundle against the store, then writes them (new rows, or
    /// refreshed ones: demographics replaced, imported entries removed, notes kept).
    mutating func writePatients() throws {
        var existing: [Int64?] = []
        for imported in bundle.patients { existing.append(try storedPatient(matching: imported)) }
        for (imported, id) in zip(bundle.patients, existing) { patientIDs.append(try write(imported, over: id)) }
    }

    mutating func write(_ resource: FHIRBundle.Resource) throws {
        switch resource {
        case .patient, .skipped:
            break
        case .allergy(let reference, let allergy):
            try db.cachedStatement(
                sql: """
                    INSERT INTO allergy (patient_id, substance, code, criticality, category, status, recorded, system)
                    VALUES (?, CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), ?,
                        CAST(? AS TEXT))
                    """
            ).execute(arguments: [
                try id(reference), storable(allergy.substance), storable(allergy.code),
                storable(allergy.criticality), storable(allergy.category), storable(allergy.status),
                seconds(allergy.recorded), storable(allergy.system),
            ])
        case .problem(let reference, let problem):
            try db.cachedStatement(
                sql: """
                    INSERT INTO problem (patient_id, code, display, status, onset, abated, system)
                    VALUES (?, CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), ?, ?, CAST(? AS TEXT))
                    """
            ).execute(arguments: [
                try id(reference), storable(problem.code), storable(problem.display), storable(problem.status),
                seconds(problem.onset), seconds(problem.abated), storable(problem.system),
            ])
        case .medication(let reference, let medication):
            try db.cachedStatement(
                sql: """
                    INSERT INTO medication (patient_id, code, display, status, dosage, authored, system)
                    VALUES (?, CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), ?, CAST(? AS TEXT))
                    """
            ).execute(arguments: [
                try id(reference), storable(medication.code), storable(medication.display),
                storable(medication.status), storable(medication.dosage), seconds(medication.authored),
                storable(medication.system),
            ])
        case .observations(let reference, let observations):
            let patientID = try id(reference)
            for observation in observations { try write(observation, patientID: patientID) }
        case .encounter(let reference, let encounter):
            try db.cachedStatement(
                sql: #"""
                    INSERT INTO encounter (patient_id, kind, display, reason, start, "end")
                    VALUES (?, CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), ?, ?)
                    """#
            ).execute(arguments: [
                try id(reference), storable(encounter.kind), storable(encounter.display),
                storable(encounter.reason), seconds(encounter.start), seconds(encounter.end),
            ])
        case .immunization(let reference, let immunization):
            try db.cachedStatement(
                sql: """
                    INSERT INTO immunization (patient_id, code, vaccine, status, date, system)
                    VALUES (?, CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), ?, CAST(? AS TEXT))
                    """
            ).execute(arguments: [
                try id(reference), storable(immunization.code), storable(immunization.vaccine),
                storable(immunization.status), seconds(immunization.date), storable(immunization.system),
            ])
        case .procedure(let reference, let procedure):
            try db.cachedStatement(
                sql: """
                    INSERT INTO procedure (patient_id, code, display, reason, status, performed, system)
                    VALUES (?, CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), ?, CAST(? AS TEXT))
                    """
            ).execute(arguments: [
                try id(reference), storable(procedure.code), storable(procedure.display), storable(procedure.reason),
                storable(procedure.status), seconds(procedure.performed), storable(procedure.system),
            ])
        case .carePlan(let reference, let plan):
            try db.cachedStatement(
                sql: #"""
                    INSERT INTO care_plan (patient_id, category, activities, status, start, "end")
                    VALUES (?, CAST(? AS TEXT), ?, CAST(? AS TEXT), ?, ?)
                    """#
            ).execute(arguments: [
                try id(reference), storable(plan.category), RecordsSchema.listText(plan.activities),
                storable(plan.status), seconds(plan.start), seconds(plan.end),
            ])
        case .report(let reference, let report):
            try db.cachedStatement(
                sql: """
                    INSERT INTO diagnostic_report (
                        patient_id, code, name, status, date, results, conclusion, system, presented_form
                    )
                    VALUES (?, CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), ?, ?, CAST(? AS TEXT),
                        CAST(? AS TEXT), CAST(? AS TEXT))
                    """
            ).execute(arguments: [
                try id(reference), storable(report.code), storable(report.name), storable(report.status),
                seconds(report.date), RecordsSchema.listText(report.results), storable(report.conclusion),
                storable(report.system), storable(report.presentedForm),
            ])
        }
    }

    // MARK: Patients

    /// The stored row this Patient refreshes, nil for a new patient; a `PatientClash` when a
    /// stored patient matches by FHIR id or by MRN but not by both.
    private func storedPatient(matching imported: FHIRBundle.ImportedPatient) throws -> Int64? {
        let mrn = imported.patient.mrn
        // `mrn` is unique without case (COLLATE NOCASE): at most one row.
        let byMRN = try Row.fetchOne(
            db.cachedStatement(sql: "SELECT id, fhir_id FROM patient WHERE mrn = ?"),
            arguments: [mrn]
        )
        if let byMRN {
            let storedID: String? = byMRN[1]
            guard storedID == imported.fhirID else {
                throw PatientClash.mrnHeldByOtherPatient(mrn: mrn, bundleID: imported.fhirID, storedID: storedID)
            }
            return byMRN[0]
        }
        if let storedMRN = try String.fetchOne(
            db.cachedStatement(sql: "SELECT mrn FROM patient WHERE fhir_id = ? LIMIT 1"),
            arguments: [imported.fhirID]
        ) {
            throw PatientClash.idHeldWithOtherMRN(id: imported.fhirID, mrn: mrn, storedMRN: storedMRN)
        }
        return nil
    }

    /// Writes a new row (`existing` nil) or refreshes the existing one; its row id.
    private func write(_ imported: FHIRBundle.ImportedPatient, over existing: Int64?) throws -> Int64 {
        let patient = imported.patient
        let values: StatementArguments = [
            patient.mrn, imported.fhirID, storable(patient.given), storable(patient.family),
            storable(patient.birthDate), patient.sex.rawValue, storable(patient.phone), storable(patient.address),
            patient.restricted,
        ]
        guard let id = existing else {
            try db.execute(
                sql: """
                    INSERT INTO patient (mrn, fhir_id, given, family, birth_date, sex, phone, address, restricted)
                    VALUES (?, ?, CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), ?, CAST(? AS TEXT),
                        CAST(? AS TEXT), ?)
                    """,
                arguments: values
            )
            return db.lastInsertedRowID
        }
        try db.execute(
            sql: """
                UPDATE patient SET mrn = ?, fhir_id = ?, given = CAST(? AS TEXT), family = CAST(? AS TEXT),
                    birth_date = CAST(? AS TEXT), sex = ?, phone = CAST(? AS TEXT), address = CAST(? AS TEXT),
                    restricted = ?
                WHERE id = ?
                """,
            arguments: values + [id]
        )
        for table in RecordsSchema.importedTables {
            try db.execute(sql: "DELETE FROM \(table) WHERE patient_id = ?", arguments: [id])
        }
        let observations = RecordsSchema.observationIDs(patient: id)
        try db.execute(
            sql: "DELETE FROM observation WHERE id BETWEEN ? AND ?",
            arguments: [observations.lowerBound, observations.upperBound]
        )
        return id
    }

    /// The row id of the patient a reference names.
    private mutating func id(_ reference: FHIRBundle.PatientReference) throws -> Int64 {
        switch reference {
        case .inBundle(let index):
            return patientIDs[index]
        case .stored(let fhirID, let path):
            if let id = storedIDs[fhirID] { return id }
            guard
                let id = try Int64.fetchOne(
                    db.cachedStatement(sql: "SELECT id FROM patient WHERE fhir_id = ?"),
                    arguments: [fhirID]
                )
            else { throw FHIRProblem(path: path, problem: "refers to no Patient in this bundle or imported before") }
            if storedIDs.count >= Self.codeCacheLimit { storedIDs.removeAll(keepingCapacity: true) }
            storedIDs[fhirID] = id
            return id
        }
    }

    // MARK: Observations

    private mutating func write(_ observation: Observation, patientID: Int64) throws {
        let range = RecordsSchema.observationIDs(patient: patientID)
        var observationID: Int64
        if let next = nextObservationID[patientID] {
            observationID = next
        } else {
            let last = try Int64.fetchOne(
                db.cachedStatement(sql: "SELECT max(id) FROM observation WHERE id BETWEEN ? AND ?"),
                arguments: [range.lowerBound, range.upperBound]
            )
            observationID = last.map { $0 + 1 } ?? range.lowerBound
        }
        guard range.contains(observationID) else {
            throw FHIRProblem(path: "entry", problem: "more observations for one patient than Ward keeps (2^20)")
        }
        nextObservationID[patientID] = observationID + 1
        let key = [observation.code, observation.display, observation.unit, observation.category.rawValue]
            .joined(separator: "\u{1F}")
        let codeID: Int64
        if let known = codeIDs[key] {
            codeID = known
        } else {
            codeID = try self.codeID(observation)
            if codeIDs.count >= Self.codeCacheLimit { codeIDs.removeAll(keepingCapacity: true) }
            codeIDs[key] = codeID
        }
        try db.cachedStatement(
            sql: "INSERT INTO observation (id, code_id, value, text, time) VALUES (?, ?, ?, CAST(? AS TEXT), ?)"
        ).execute(arguments: [
            observationID, codeID, observation.value, observation.text.map(storable), seconds(observation.time),
        ])
    }

    private func codeID(_ observation: Observation) throws -> Int64 {
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

    private func seconds(_ date: Date?) -> Int64? {
        date.map { Int64($0.timeIntervalSince1970.rounded(.down)) }
    }
}

/// `text` as a value SQLite stores whole: a string, or, when it holds U+0000, its UTF-8 bytes as
/// a blob that the statement casts back to TEXT (`CAST(? AS TEXT)` keeps every byte).
func storable(_ text: String) -> DatabaseValue {
    text.utf8.contains(0) ? Data(text.utf8).databaseValue : text.databaseValue
}
