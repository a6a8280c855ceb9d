import FoundationEssentials
import PostgresNIO

/// Reads one patient's chart from PostgreSQL, each section in the order `SQLiteChartLoader` reads
/// SQLite's, so a chart reads the same from either store.
struct PostgresChartLoader {
    let store: PostgresRecordStore

    /// Reads the chart in one statement (`PostgresChartStatements.Chart`): one round trip and
    /// one snapshot, the patient's row first, then the sections' rows in `LoadedChart`'s order.
    /// A failing statement drops the connection (`PostgresLink.prepared`).
    func load(mrn: String, contents: ChartContents) throws -> LoadedChart {
        let key = mrn.lowercased(ascii: true)
        guard contents == .full else {
            // One statement is one snapshot: no transaction needed.
            return LoadedChart(patient: try patient(store.prepared([PostgresChartStatements.patient(key)])[0]))
        }
        let rows = try store.prepared([PostgresChartStatements.chart(key)])[0]
        return try PostgresLink.decoded {
            guard let first = rows.first else { throw StoreError.noSuchPatient }
            let head = try Slots(first)
            guard head.section == .patient else { throw StoreError.noSuchPatient }
            var chart = Sections()
            for row in rows.dropFirst() { try Slots(row).add(to: &chart) }
            return LoadedChart(
                patient: try head.patient(),
                allergies: chart.allergies,
                problems: chart.problems,
                medications: chart.medications,
                observations: chart.observations,
                encounters: chart.encounters,
                notes: chart.notes,
                immunizations: chart.immunizations,
                procedures: chart.procedures,
                carePlans: chart.carePlans,
                reports: chart.reports
            )
        }
    }

    /// The chart's patient, from the patient statement's rows.
    private func patient(_ found: [PostgresRow]) throws -> Patient {
        guard let row = found.first else { throw StoreError.noSuchPatient }
        return try PostgresLink.decoded {
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

/// A chart's sections as its rows arrive.
private struct Sections {
    var allergies: [Allergy] = []
    var problems: [Problem] = []
    var medications: [Medication] = []
    var observations: [Observation] = []
    var encounters: [Encounter] = []
    var notes: [Note] = []
    var immunizations: [Immunization] = []
    var procedures: [Procedure] = []
    var carePlans: [CarePlan] = []
    var reports: [DiagnosticReport] = []
}

/// One row of `PostgresChartStatements.Chart`: its section and its typed slots. A slot its
/// section fills with a value of a NOT NULL column reads as a missing value if NULL, which
/// `PostgresLink.decoded` reports as a row it could not read.
private struct Slots {
    struct Missing: Error {}

    let section: PostgresChartStatements.Section
    let t: (String?, String?, String?, String?, String?, String?, String?)
    let i: (Int64?, Int64?)
    let number: Double?
    let flag: Bool?

    init(_ row: PostgresRow) throws {
        let c = try row.decode(
            (
                Int32, Int64, String?, String?, String?, String?, String?, String?, String?, Int64?, Int64?, Double?,
                Bool?
            ).self
        )
        guard let section = PostgresChartStatements.Section(rawValue: c.0) else { throw Missing() }
        self.section = section
        t = (c.2, c.3, c.4, c.5, c.6, c.7, c.8)
        i = (c.9, c.10)
        number = c.11
        flag = c.12
    }

    /// A value its section's column cannot leave out.
    private func need<T>(_ value: T?) throws -> T {
        guard let value else { throw Missing() }
        return value
    }

    func patient() throws -> Patient {
        Patient(
            mrn: try need(t.0),
            given: try need(t.1),
            family: try need(t.2),
            birthDate: try need(t.3),
            sex: Sex(rawValue: try need(t.4)) ?? .unknown,
            phone: try need(t.5),
            address: try need(t.6),
            restricted: try need(flag)
        )
    }

    /// Appends the row to its section, keeping the statement's order.
    func add(to chart: inout Sections) throws {
        switch section {
        case .patient:
            throw Missing()
        case .allergies:
            chart.allergies.append(
                Allergy(
                    substance: try need(t.0),
                    code: try need(t.1),
                    criticality: try need(t.2),
                    category: try need(t.3),
                    status: try need(t.4),
                    recorded: date(i.0),
                    system: try need(t.5)
                )
            )
        case .problems:
            chart.problems.append(
                Problem(
                    code: try need(t.0),
                    display: try need(t.1),
                    status: try need(t.2),
                    onset: date(i.0),
                    abated: date(i.1),
                    system: try need(t.3)
                )
            )
        case .medications:
            chart.medications.append(
                Medication(
                    code: try need(t.0),
                    display: try need(t.1),
                    status: try need(t.2),
                    dosage: try need(t.3),
                    authored: date(i.0),
                    system: try need(t.4)
                )
            )
        case .observations:
            chart.observations.append(
                Observation(
                    code: try need(t.0),
                    display: try need(t.1),
                    category: Observation.Category(rawValue: try need(t.2)) ?? .other,
                    value: number,
                    text: t.3,
                    unit: try need(t.4),
                    time: date(try need(i.0)) ?? .distantPast,
                    system: try need(t.5)
                )
            )
        case .encounters:
            chart.encounters.append(
                Encounter(
                    kind: try need(t.0),
                    display: try need(t.1),
                    reason: try need(t.2),
                    start: date(try need(i.0)) ?? .distantPast,
                    end: date(i.1)
                )
            )
        case .notes:
            chart.notes.append(
                Note(
                    author: try need(t.0),
                    time: date(try need(i.0)) ?? .distantPast,
                    text: try need(t.1),
                    id: i.1,
                    corrects: number.map { Int64($0) }
                )
            )
        case .immunizations:
            chart.immunizations.append(
                Immunization(
                    code: try need(t.0),
                    vaccine: try need(t.1),
                    status: try need(t.2),
                    date: date(i.0),
                    system: try need(t.3)
                )
            )
        case .procedures:
            chart.procedures.append(
                Procedure(
                    code: try need(t.0),
                    display: try need(t.1),
                    reason: try need(t.2),
                    status: try need(t.3),
                    performed: date(i.0),
                    system: try need(t.4)
                )
            )
        case .carePlans:
            chart.carePlans.append(
                CarePlan(
                    category: try need(t.0),
                    activities: RecordsLayout.list(try need(t.1)),
                    status: try need(t.2),
                    start: date(i.0),
                    end: date(i.1)
                )
            )
        case .reports:
            chart.reports.append(
                DiagnosticReport(
                    code: try need(t.0),
                    name: try need(t.1),
                    status: try need(t.2),
                    date: date(i.0),
                    results: RecordsLayout.results(try need(t.3)),
                    conclusion: try need(t.4),
                    system: try need(t.5),
                    presentedForm: try need(t.6)
                )
            )
        }
    }
}
