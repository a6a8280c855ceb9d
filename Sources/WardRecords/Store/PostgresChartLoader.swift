import Foundation
import PostgresNIO

/// Reads one patient's chart from PostgreSQL, section by section, in the orders `ChartLoader`
/// reads SQLite's, so a chart reads the same from either store.
struct PostgresChartLoader {
    let store: PostgresRecordStore

    /// Reads the chart in one flight: the patient row and, for a full chart, its ten sections
    /// between `BEGIN … REPEATABLE READ READ ONLY` and `COMMIT`, all sent at once and waited for
    /// once (`PostgresLink.queries`). Each section finds the patient by MRN itself (a subquery on
    /// `patient_mrn`), so nothing waits for the patient's id: five waits on the connection's
    /// thread (BEGIN, the patient, the sections, COMMIT) became one. A failing statement aborts
    /// the transaction, and the `COMMIT` already sent then rolls it back, so the connection is
    /// left outside any transaction either way.
    func load(mrn: String, contents: ChartContents) throws -> LoadedChart {
        let key = mrn.lowercased(ascii: true)
        let patientRow: PostgresQuery = """
            SELECT mrn, given, family, birth_date, sex, phone, address, restricted FROM patient
            WHERE lower(mrn) COLLATE "C" = \(key)
            """
        guard contents == .full else {
            // One statement is one snapshot: no transaction needed.
            return LoadedChart(patient: try patient(store.rows(patientRow)))
        }
        let flight = try store.rows(
            ["BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", patientRow] + Self.sections(key) + ["COMMIT"]
        )
        let patient = try patient(flight[1])
        let sections = Array(flight[2..<(flight.count - 1)])
        func section<T>(_ index: Int, _ make: (PostgresRow) throws -> T) throws -> [T] {
            try store.decoded { try sections[index].map(make) }
        }
        return LoadedChart(
            patient: patient,
            allergies: try section(0) {
                let c = try $0.decode((String, String, String, String, String, Int64?, String).self)
                return Allergy(
                    substance: c.0,
                    code: c.1,
                    criticality: c.2,
                    category: c.3,
                    status: c.4,
                    recorded: date(c.5),
                    system: c.6
                )
            },
            problems: try section(1) {
                let c = try $0.decode((String, String, String, Int64?, Int64?, String).self)
                return Problem(code: c.0, display: c.1, status: c.2, onset: date(c.3), abated: date(c.4), system: c.5)
            },
            medications: try section(2) {
                let c = try $0.decode((String, String, String, String, Int64?, String).self)
                return Medication(
                    code: c.0,
                    display: c.1,
                    status: c.2,
                    dosage: c.3,
                    authored: date(c.4),
                    system: c.5
                )
            },
            observations: try section(3) {
                let c = try $0.decode((String, String, String, Double?, String?, String, Int64, String).self)
                return Observation(
                    code: c.0,
                    display: c.1,
                    category: Observation.Category(rawValue: c.2) ?? .other,
                    value: c.3,
                    text: c.4,
                    unit: c.5,
                    time: date(c.6) ?? .distantPast,
                    system: c.7
                )
            },
            encounters: try section(4) {
                let c = try $0.decode((String, String, String, Int64, Int64?).self)
                return Encounter(kind: c.0, display: c.1, reason: c.2, start: date(c.3) ?? .distantPast, end: date(c.4))
            },
            notes: try section(5) {
                let c = try $0.decode((String, Int64, String).self)
                return Note(author: c.0, time: date(c.1) ?? .distantPast, text: c.2)
            },
            immunizations: try section(6) {
                let c = try $0.decode((String, String, String, Int64?, String).self)
                return Immunization(code: c.0, vaccine: c.1, status: c.2, date: date(c.3), system: c.4)
            },
            procedures: try section(7) {
                let c = try $0.decode((String, String, String, String, Int64?, String).self)
                return Procedure(
                    code: c.0,
                    display: c.1,
                    reason: c.2,
                    status: c.3,
                    performed: date(c.4),
                    system: c.5
                )
            },
            carePlans: try section(8) {
                let c = try $0.decode((String, String, String, Int64?, Int64?).self)
                return CarePlan(
                    category: c.0,
                    activities: RecordsSchema.list(c.1),
                    status: c.2,
                    start: date(c.3),
                    end: date(c.4)
                )
            },
            reports: try section(9) {
                let c = try $0.decode((String, String, String, Int64?, String, String, String, String).self)
                return DiagnosticReport(
                    code: c.0,
                    name: c.1,
                    status: c.2,
                    date: date(c.3),
                    results: RecordsSchema.list(c.4),
                    conclusion: c.5,
                    system: c.6,
                    presentedForm: c.7
                )
            }
        )
    }

    /// The chart's patient, from the patient statement's rows.
    private func patient(_ found: [PostgresRow]) throws -> Patient {
        guard let row = found.first else { throw StoreError.noSuchPatient }
        return try store.decoded {
            let (mrn, given, family, birthDate, sex, phone, address, restricted) = try row.decode(
                (String, String, String, String, String, String, String, Bool).self
            )
            return Patient(
                mrn: mrn,
                given: given,
                family: family,
                birthDate: birthDate,
                sex: Sex(rawValue: sex) ?? .unknown,
                phone: phone,
                address: address,
                restricted: restricted
            )
        }
    }

    /// The sections in `LoadedChart`'s order, each finding the patient by the lower-cased MRN
    /// `key`. `NULLS FIRST` sorts as SQLite does.
    private static func sections(_ key: String) -> [PostgresQuery] {
        let first = Int64(1) << RecordsSchema.observationIDBits
        let last = first - 1
        return [
            """
            SELECT substance, code, criticality, category, status, recorded, system FROM allergy
            WHERE patient_id = (SELECT id FROM patient WHERE lower(mrn) COLLATE "C" = \(key)) ORDER BY id
            """,
            """
            SELECT code, display, status, onset, abated, system FROM problem
            WHERE patient_id = (SELECT id FROM patient WHERE lower(mrn) COLLATE "C" = \(key))
            ORDER BY onset NULLS FIRST, id
            """,
            """
            SELECT code, display, status, dosage, authored, system FROM medication
            WHERE patient_id = (SELECT id FROM patient WHERE lower(mrn) COLLATE "C" = \(key))
            ORDER BY authored NULLS FIRST, id
            """,
            // The observation ids of `RecordsSchema.observationIDs`, from the patient's id. Two
            // scalar subqueries, not a join: a join's range is estimated at a ninth of the table
            // (millions of rows), which sorts and JIT-compiles for a chart of a hundred.
            """
            SELECT c.code, c.display, c.category, o.value, o.text, c.unit, o.time, c.system
            FROM observation o JOIN observation_code c ON c.id = o.code_id
            WHERE o.id BETWEEN (SELECT id * \(first) FROM patient WHERE lower(mrn) COLLATE "C" = \(key))
                AND (SELECT id * \(first) + \(last) FROM patient WHERE lower(mrn) COLLATE "C" = \(key))
            ORDER BY o.time, o.id
            """,
            #"""
            SELECT kind, display, reason, start, "end" FROM encounter
            WHERE patient_id = (SELECT id FROM patient WHERE lower(mrn) COLLATE "C" = \#(key)) ORDER BY start, id
            """#,
            """
            SELECT author, time, text FROM note
            WHERE patient_id = (SELECT id FROM patient WHERE lower(mrn) COLLATE "C" = \(key)) ORDER BY time, id
            """,
            """
            SELECT code, vaccine, status, date, system FROM immunization
            WHERE patient_id = (SELECT id FROM patient WHERE lower(mrn) COLLATE "C" = \(key))
            ORDER BY date NULLS FIRST, id
            """,
            """
            SELECT code, display, reason, status, performed, system FROM procedure
            WHERE patient_id = (SELECT id FROM patient WHERE lower(mrn) COLLATE "C" = \(key))
            ORDER BY performed NULLS FIRST, id
            """,
            #"""
            SELECT category, activities, status, start, "end" FROM care_plan
            WHERE patient_id = (SELECT id FROM patient WHERE lower(mrn) COLLATE "C" = \#(key))
            ORDER BY start NULLS FIRST, id
            """#,
            """
            SELECT code, name, status, date, results, conclusion, system, presented_form FROM diagnostic_report
            WHERE patient_id = (SELECT id FROM patient WHERE lower(mrn) COLLATE "C" = \(key))
            ORDER BY date NULLS FIRST, id
            """,
        ]
    }
}
