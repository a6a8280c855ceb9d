import Foundation
import PostgresNIO

/// Reads one patient's chart from PostgreSQL, section by section, in the orders `ChartLoader`
/// reads SQLite's, so a chart reads the same from either store.
struct PostgresChartLoader {
    let store: PostgresRecordStore

    /// Reads the chart in one wait: `BEGIN … REPEATABLE READ READ ONLY`, the patient row, the
    /// ten sections and `COMMIT`, prepared statements run back to back on the connection's thread
    /// (`PostgresLink.prepared`, `PostgresChartStatements`). Each section finds the patient by
    /// MRN itself, so nothing waits for the patient's id. A failing statement ends the flight
    /// and drops the connection, whose transaction the server then rolls back.
    func load(mrn: String, contents: ChartContents) throws -> LoadedChart {
        let key = mrn.lowercased(ascii: true)
        guard contents == .full else {
            // One statement is one snapshot: no transaction needed.
            return LoadedChart(patient: try patient(store.prepared([PostgresChartStatements.patient(key)])[0]))
        }
        let flight = try store.prepared(PostgresChartStatements.chart(key))
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
}
