import Foundation
import GRDB

/// `ward import`: FHIR R4 bundles as Synthea writes them, from files or directories.
///
/// Each bundle is read and checked whole (`FHIRBundle`), then written in one transaction, so a
/// malformed bundle imports nothing and the ones around it are unaffected. A Patient already in
/// the store (same FHIR id, else same MRN) is refreshed: demographics replaced, its imported
/// allergies, problems, medications, observations and encounters replaced by the bundle's;
/// notes written in Ward are kept. Importing the same bundle twice therefore changes nothing.
public struct FHIRImporter {
    private let store: SQLiteRecordStore

    public init(store: SQLiteRecordStore) {
        self.store = store
    }

    /// The bundle files under `paths`: each file as given, each directory's `*.json` files
    /// (recursively, sorted, so runs are repeatable). Unreadable paths become failures.
    public static func files(in paths: [String]) -> (files: [String], failures: [StoreError]) {
        var files: [String] = []
        var failures: [StoreError] = []
        let manager = FileManager.default
        for path in paths {
            var isDirectory: ObjCBool = false
            guard manager.fileExists(atPath: path, isDirectory: &isDirectory) else {
                failures.append(.unreadable(path: path))
                continue
            }
            guard isDirectory.boolValue else {
                files.append(path)
                continue
            }
            guard let walker = manager.enumerator(atPath: path) else {
                failures.append(.unreadable(path: path))
                continue
            }
            var found: [String] = []
            while let relative = walker.nextObject() as? String {
                if relative.lowercased().hasSuffix(".json") {
                    found.append((path as NSString).appendingPathComponent(relative))
                }
            }
            files += found.sorted()
        }
        return (files, failures)
    }

    /// Imports every bundle under `paths`, going on past failures; `progress(done, total, report)`
    /// is called after each file.
    public func importBundles(
        at paths: [String], progress: (Int, Int, ImportReport) -> Void = { _, _, _ in }
    ) -> ImportReport {
        var report = ImportReport()
        let (files, failures) = Self.files(in: paths)
        report.failures = failures
        for (done, file) in files.enumerated() {
            report.files += 1
            do {
                guard let data = FileManager.default.contents(atPath: file) else { throw StoreError.unreadable(path: file) }
                try importBundle(data, file: file, into: &report)
            } catch let error as StoreError {
                report.failures.append(error)
            } catch {
                report.failures.append(.database(reason: "\(file): \(type(of: error))"))
            }
            progress(done + 1, files.count, report)
        }
        return report
    }

    /// Imports one bundle in one transaction. Throws `StoreError.malformedBundle` naming `file`
    /// and the JSON path when the bundle is malformed; nothing of it is then written.
    public func importBundle(_ data: Data, file: String, into report: inout ImportReport) throws {
        let bundle: FHIRBundle
        do {
            bundle = try FHIRBundle(json: data)
        } catch let problem as FHIRProblem {
            throw StoreError.malformedBundle(file: file, path: problem.path, problem: problem.problem)
        }
        try store.write { db in
            do {
                try BundleWriter(db: db, bundle: bundle).write()
            } catch let problem as FHIRProblem {
                throw StoreError.malformedBundle(file: file, path: problem.path, problem: problem.problem)
            }
        }
        report.bundles += 1
        report.patients += bundle.patients.count
        report.imported.merge(bundle.read, uniquingKeysWith: +)
        report.skipped.merge(bundle.skipped, uniquingKeysWith: +)
    }
}

/// Writes one checked bundle inside the caller's transaction.
private struct BundleWriter {
    let db: Database
    let bundle: FHIRBundle

    func write() throws {
        var ids: [Int64] = []
        for imported in bundle.patients { ids.append(try upsert(imported)) }
        var storedIDs: [String: Int64] = [:]
        func id(_ reference: FHIRBundle.PatientReference) throws -> Int64 {
            switch reference {
            case .inBundle(let index):
                return ids[index]
            case .stored(let fhirID, let path):
                if let id = storedIDs[fhirID] { return id }
                guard
                    let id = try Int64.fetchOne(
                        db.cachedStatement(sql: "SELECT id FROM patient WHERE fhir_id = ?"), arguments: [fhirID])
                else { throw FHIRProblem(path: path, problem: "refers to no Patient in this bundle or imported before") }
                storedIDs[fhirID] = id
                return id
            }
        }
        for (reference, allergy) in bundle.allergies {
            try db.cachedStatement(
                sql: """
                    INSERT INTO allergy (patient_id, substance, code, criticality, category, status, recorded)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """
            ).execute(arguments: [
                try id(reference), allergy.substance, allergy.code, allergy.criticality, allergy.category,
                allergy.status, seconds(allergy.recorded),
            ])
        }
        for (reference, problem) in bundle.problems {
            try db.cachedStatement(
                sql: "INSERT INTO problem (patient_id, code, display, status, onset, abated) VALUES (?, ?, ?, ?, ?, ?)"
            ).execute(arguments: [
                try id(reference), problem.code, problem.display, problem.status, seconds(problem.onset),
                seconds(problem.abated),
            ])
        }
        for (reference, medication) in bundle.medications {
            try db.cachedStatement(
                sql: """
                    INSERT INTO medication (patient_id, code, display, status, dosage, authored)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """
            ).execute(arguments: [
                try id(reference), medication.code, medication.display, medication.status, medication.dosage,
                seconds(medication.authored),
            ])
        }
        var codeIDs: [String: Int64] = [:]
        var nextObservationID: [Int64: Int64] = [:]
        for (reference, observation) in bundle.observations {
            let patientID = try id(reference)
            let range = RecordsSchema.observationIDs(patient: patientID)
            var observationID: Int64
            if let next = nextObservationID[patientID] {
                observationID = next
            } else {
                let last = try Int64.fetchOne(
                    db.cachedStatement(sql: "SELECT max(id) FROM observation WHERE id BETWEEN ? AND ?"),
                    arguments: [range.lowerBound, range.upperBound])
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
                codeIDs[key] = codeID
            }
            try db.cachedStatement(
                sql: "INSERT INTO observation (id, code_id, value, text, time) VALUES (?, ?, ?, ?, ?)"
            ).execute(arguments: [
                observationID, codeID, observation.value, observation.text, seconds(observation.time),
            ])
        }
        for (reference, encounter) in bundle.encounters {
            try db.cachedStatement(
                sql: #"INSERT INTO encounter (patient_id, kind, display, reason, start, "end") VALUES (?, ?, ?, ?, ?, ?)"#
            ).execute(arguments: [
                try id(reference), encounter.kind, encounter.display, encounter.reason, seconds(encounter.start),
                seconds(encounter.end),
            ])
        }
    }

    /// The patient's row id: a new row, or the existing one (same FHIR id, else same MRN) with
    /// its demographics replaced and its imported entries removed.
    private func upsert(_ imported: FHIRBundle.ImportedPatient) throws -> Int64 {
        let patient = imported.patient
        let existing = try Int64.fetchOne(
            db.cachedStatement(sql: "SELECT id FROM patient WHERE fhir_id = ? UNION ALL SELECT id FROM patient WHERE mrn = ? LIMIT 1"),
            arguments: [imported.fhirID, patient.mrn])
        let values: StatementArguments = [
            patient.mrn, imported.fhirID, patient.given, patient.family, patient.birthDate, patient.sex.rawValue,
            patient.phone, patient.address, patient.restricted,
        ]
        guard let id = existing else {
            try db.execute(
                sql: """
                    INSERT INTO patient (mrn, fhir_id, given, family, birth_date, sex, phone, address, restricted)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """, arguments: values)
            return db.lastInsertedRowID
        }
        try db.execute(
            sql: """
                UPDATE patient SET mrn = ?, fhir_id = ?, given = ?, family = ?, birth_date = ?, sex = ?, phone = ?,
                    address = ?, restricted = ?
                WHERE id = ?
                """, arguments: values + [id])
        for table in ["allergy", "problem", "medication", "encounter"] {
            try db.execute(sql: "DELETE FROM \(table) WHERE patient_id = ?", arguments: [id])
        }
        let observations = RecordsSchema.observationIDs(patient: id)
        try db.execute(
            sql: "DELETE FROM observation WHERE id BETWEEN ? AND ?",
            arguments: [observations.lowerBound, observations.upperBound])
        return id
    }

    private func codeID(_ observation: Observation) throws -> Int64 {
        let arguments: StatementArguments = [
            observation.code, observation.display, observation.unit, observation.category.rawValue,
        ]
        try db.execute(
            sql: """
                INSERT INTO observation_code (code, display, unit, category) VALUES (?, ?, ?, ?)
                ON CONFLICT (code, display, unit, category) DO NOTHING
                """, arguments: arguments)
        return try Int64.fetchOne(
            db.cachedStatement(
                sql: "SELECT id FROM observation_code WHERE code = ? AND display = ? AND unit = ? AND category = ?"),
            arguments: arguments)!
    }

    private func seconds(_ date: Date?) -> Int64? {
        date.map { Int64($0.timeIntervalSince1970.rounded(.down)) }
    }
}
