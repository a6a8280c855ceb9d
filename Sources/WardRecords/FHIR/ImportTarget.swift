/// Where `BundleWriter` writes a bundle: the embedded store's SQLite connection
/// (`SQLiteImportTarget`) or the shared PostgreSQL database (`PostgresImportTarget`), inside a
/// transaction the importer holds.
///
/// Why a writer behind a protocol here, where `ward demo` stages a SQLite file and copies it:
/// an import reads the store as it writes: a Patient is checked against the stored ones by MRN
/// and FHIR id (`PatientClash`), a reference may name a patient imported before, and a
/// refreshed patient's observations continue its range. A staging file would have none of
/// the stored rows. So the rules stay in one place (`BundleWriter`) and only the statements
/// differ: reads and patients go to the store at once, entries may be gathered and sent in
/// bulk (`finish()` sends what is left).
protocol ImportTarget: AnyObject {
    /// The stored patient whose MRN is `mrn` (ASCII case ignored): its row id and FHIR id.
    func patient(mrn: String) throws -> (id: Int64, fhirID: String?)?
    /// The MRN of the stored patient with this FHIR id; of the first added (lowest row id) when
    /// several have it, as `fhir_id` is not unique, so that both stores answer alike.
    func mrn(fhirID: String) throws -> String?
    /// The row id of the stored patient with this FHIR id; the lowest, as `mrn(fhirID:)`.
    func patientID(fhirID: String) throws -> Int64?
    /// Adds a patient; its row id.
    func insert(_ imported: FHIRBundle.ImportedPatient) throws -> Int64
    /// Replaces a stored patient's demographics and removes its imported entries and
    /// observations (notes written in Ward stay).
    func refresh(_ id: Int64, with imported: FHIRBundle.ImportedPatient) throws
    /// The highest observation id in `range` (one patient's), nil when it has none.
    func lastObservationID(in range: ClosedRange<Int64>) throws -> Int64?
    /// The id of the observation code of `observation`, added when new.
    func codeID(_ observation: Observation) throws -> Int64
    /// Adds one entry's row.
    func add(_ row: ImportRow) throws
    /// Writes what `add` has gathered; called before the transaction commits.
    func finish() throws
}

/// One row of an imported entry: its table, its columns, and a value for each.
struct ImportRow {
    let table: Table
    let values: [Value]

    /// A table of imported entries and the columns an import writes.
    struct Table: Hashable, Sendable {
        let name: String
        let columns: [String]

        static let allergy = Table(
            name: "allergy",
            columns: ["patient_id", "substance", "code", "criticality", "category", "status", "recorded", "system"]
        )
        static let problem = Table(
            name: "problem",
            columns: ["patient_id", "code", "display", "status", "onset", "abated", "system"]
        )
        static let medication = Table(
            name: "medication",
            columns: ["patient_id", "code", "display", "status", "dosage", "authored", "system"]
        )
        static let encounter = Table(
            name: "encounter",
            columns: ["patient_id", "kind", "display", "reason", "start", "end"]
        )
        static let immunization = Table(
            name: "immunization",
            columns: ["patient_id", "code", "vaccine", "status", "date", "system"]
        )
        static let procedure = Table(
            name: "procedure",
            columns: ["patient_id", "code", "display", "reason", "status", "performed", "system"]
        )
        static let carePlan = Table(
            name: "care_plan",
            columns: ["patient_id", "category", "activities", "status", "start", "end"]
        )
        static let report = Table(
            name: "diagnostic_report",
            columns: [
                "patient_id", "code", "name", "status", "date", "results", "conclusion", "system", "presented_form",
            ]
        )
        static let observation = Table(name: "observation", columns: ["id", "code_id", "value", "text", "time"])
    }

    /// A value, typed as both stores' columns are.
    enum Value {
        case text(String)
        case optionalText(String?)
        case integer(Int64?)
        case real(Double?)
    }
}
