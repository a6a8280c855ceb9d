import FoundationEssentials

/// Writes one bundle, entry by entry, inside the caller's transaction, through an
/// `ImportTarget` (the embedded store or the shared database).
///
/// `writePatients` first checks every Patient of the bundle against the store and writes
/// nothing if one clashes (`PatientClash`); then it writes them all, so that entries anywhere
/// in the file can refer to them. `write(_:)` writes one converted entry at a time, as the
/// second pass of `FHIRBundle` streams them: the only state kept between entries is per
/// patient or per code, never per entry.
struct BundleWriter {
    let target: any ImportTarget
    let bundle: FHIRBundle
    /// Row ids of the bundle's patients, by position in `bundle.patients`.
    private var patientIDs: [Int64] = []
    /// Row ids of patients imported before, by FHIR id, as references find them.
    private var storedIDs: [String: Int64] = [:]
    private var codeIDs: [String: Int64] = [:]
    private var nextObservationID: [Int64: Int64] = [:]
    /// Bounds the code cache: a hostile bundle may give every observation its own code.
    private static let codeCacheLimit = 10_000

    init(target: any ImportTarget, bundle: FHIRBundle) {
        self.target = target
        self.bundle = bundle
    }

    /// Checks every Patient of the bundle against the store, then writes them (new rows, or
    /// refreshed ones: demographics replaced, imported entries removed, notes kept).
    mutating func writePatients() throws {
        var existing: [Int64?] = []
        for imported in bundle.patients { existing.append(try storedPatient(matching: imported)) }
        for (imported, id) in zip(bundle.patients, existing) {
            if let id {
                try target.refresh(id, with: imported)
                patientIDs.append(id)
            } else {
                patientIDs.append(try target.insert(imported))
            }
        }
    }

    mutating func write(_ resource: FHIRBundle.Resource) throws {
        switch resource {
        case .patient, .skipped:
            break
        case .allergy(let reference, let allergy):
            try target.add(
                ImportRow(
                    table: .allergy,
                    values: [
                        .integer(try id(reference)), .text(allergy.substance), .text(allergy.code),
                        .text(allergy.criticality), .text(allergy.category), .text(allergy.status),
                        .integer(seconds(allergy.recorded)), .text(allergy.system),
                    ]
                )
            )
        case .problem(let reference, let problem):
            try target.add(
                ImportRow(
                    table: .problem,
                    values: [
                        .integer(try id(reference)), .text(problem.code), .text(problem.display),
                        .text(problem.status), .integer(seconds(problem.onset)), .integer(seconds(problem.abated)),
                        .text(problem.system),
                    ]
                )
            )
        case .medication(let reference, let medication):
            try target.add(
                ImportRow(
                    table: .medication,
                    values: [
                        .integer(try id(reference)), .text(medication.code), .text(medication.display),
                        .text(medication.status), .text(medication.dosage), .integer(seconds(medication.authored)),
                        .text(medication.system),
                    ]
                )
            )
        case .observations(let reference, let observations):
            let patientID = try id(reference)
            for observation in observations { try write(observation, patientID: patientID) }
        case .encounter(let reference, let encounter):
            try target.add(
                ImportRow(
                    table: .encounter,
                    values: [
                        .integer(try id(reference)), .text(encounter.kind), .text(encounter.display),
                        .text(encounter.reason), .integer(seconds(encounter.start)), .integer(seconds(encounter.end)),
                    ]
                )
            )
        case .immunization(let reference, let immunization):
            try target.add(
                ImportRow(
                    table: .immunization,
                    values: [
                        .integer(try id(reference)), .text(immunization.code), .text(immunization.vaccine),
                        .text(immunization.status), .integer(seconds(immunization.date)), .text(immunization.system),
                    ]
                )
            )
        case .procedure(let reference, let procedure):
            try target.add(
                ImportRow(
                    table: .procedure,
                    values: [
                        .integer(try id(reference)), .text(procedure.code), .text(procedure.display),
                        .text(procedure.reason), .text(procedure.status), .integer(seconds(procedure.performed)),
                        .text(procedure.system),
                    ]
                )
            )
        case .carePlan(let reference, let plan):
            try target.add(
                ImportRow(
                    table: .carePlan,
                    values: [
                        .integer(try id(reference)), .text(plan.category),
                        .text(RecordsLayout.listText(plan.activities)), .text(plan.status),
                        .integer(seconds(plan.start)), .integer(seconds(plan.end)),
                    ]
                )
            )
        case .report(let reference, let report):
            try target.add(
                ImportRow(
                    table: .report,
                    values: [
                        .integer(try id(reference)), .text(report.code), .text(report.name), .text(report.status),
                        .integer(seconds(report.date)), .text(RecordsLayout.resultsText(report.results)),
                        .text(report.conclusion), .text(report.system), .text(report.presentedForm),
                    ]
                )
            )
        }
    }

    // MARK: Patients

    /// The stored row this Patient refreshes, nil for a new patient; a `PatientClash` when a
    /// stored patient matches by FHIR id or by MRN but not by both.
    private func storedPatient(matching imported: FHIRBundle.ImportedPatient) throws -> Int64? {
        let mrn = imported.patient.mrn
        if let byMRN = try target.patient(mrn: mrn) {
            guard byMRN.fhirID == imported.fhirID else {
                throw PatientClash.mrnHeldByOtherPatient(mrn: mrn, bundleID: imported.fhirID, storedID: byMRN.fhirID)
            }
            return byMRN.id
        }
        if let storedMRN = try target.mrn(fhirID: imported.fhirID) {
            throw PatientClash.idHeldWithOtherMRN(id: imported.fhirID, mrn: mrn, storedMRN: storedMRN)
        }
        return nil
    }

    /// The row id of the patient a reference names.
    private mutating func id(_ reference: FHIRBundle.PatientReference) throws -> Int64 {
        switch reference {
        case .inBundle(let index):
            return patientIDs[index]
        case .stored(let fhirID, let path):
            if let id = storedIDs[fhirID] { return id }
            guard let id = try target.patientID(fhirID: fhirID) else {
                throw FHIRProblem(path: path, problem: "refers to no Patient in this bundle or imported before")
            }
            if storedIDs.count >= Self.codeCacheLimit { storedIDs.removeAll(keepingCapacity: true) }
            storedIDs[fhirID] = id
            return id
        }
    }

    // MARK: Observations

    private mutating func write(_ observation: Observation, patientID: Int64) throws {
        let range = RecordsLayout.observationIDs(patient: patientID)
        var observationID: Int64
        if let next = nextObservationID[patientID] {
            observationID = next
        } else {
            observationID = try target.lastObservationID(in: range).map { $0 + 1 } ?? range.lowerBound
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
            codeID = try target.codeID(observation)
            if codeIDs.count >= Self.codeCacheLimit { codeIDs.removeAll(keepingCapacity: true) }
            codeIDs[key] = codeID
        }
        try target.add(
            ImportRow(
                table: .observation,
                values: [
                    .integer(observationID), .integer(codeID), .real(observation.value),
                    .optionalText(observation.text), .integer(seconds(observation.time)),
                ]
            )
        )
    }

    private func seconds(_ date: Date?) -> Int64? {
        date.map { Int64($0.timeIntervalSince1970.rounded(.down)) }
    }
}
