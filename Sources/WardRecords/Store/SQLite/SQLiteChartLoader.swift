import FoundationEssentials

/// Reads one patient's chart, section by section, each through an index on `patient_id`.
///
/// Statements are cached on the connection, so opening charts one after another prepares
/// nothing; closing the connection on lock drops them with it.
struct SQLiteChartLoader {
    let db: SQLiteConnection

    init(_ db: SQLiteConnection) { self.db = db }

    func load(mrn: String, contents: ChartContents) throws -> LoadedChart {
        // Stepped straight from its statement, as the sections are.
        var found: (id: Int64, patient: Patient)?
        try db.eachRow(
            """
            SELECT id, mrn, given, family, birth_date, sex, phone, address, restricted
            FROM patient WHERE mrn = ?
            """,
            [.text(mrn)]
        ) { row in
            found = (
                row.int64(0),
                Patient(
                    mrn: row.text(1),
                    given: row.text(2),
                    family: row.text(3),
                    birthDate: row.text(4),
                    sex: Sex(rawValue: row.text(5)) ?? .unknown,
                    phone: row.text(6),
                    address: row.text(7),
                    restricted: row.int64(8) != 0
                )
            )
        }
        guard let (id, patient) = found else { throw StoreError.noSuchPatient }
        guard contents == .full else { return LoadedChart(patient: patient) }
        return LoadedChart(
            patient: patient,
            allergies: try rows(
                """
                SELECT substance, code, criticality, category, status, recorded, system FROM allergy
                WHERE patient_id = ? ORDER BY id
                """,
                id
            ) {
                Allergy(
                    substance: $0.text(0),
                    code: $0.text(1),
                    criticality: $0.text(2),
                    category: $0.text(3),
                    status: $0.text(4),
                    recorded: date($0[5]),
                    system: $0.text(6)
                )
            },
            problems: try rows(
                """
                SELECT code, display, status, onset, abated, system FROM problem
                WHERE patient_id = ? ORDER BY onset, id
                """,
                id
            ) {
                Problem(
                    code: $0.text(0),
                    display: $0.text(1),
                    status: $0.text(2),
                    onset: date($0[3]),
                    abated: date($0[4]),
                    system: $0.text(5)
                )
            },
            medications: try rows(
                """
                SELECT code, display, status, dosage, authored, system FROM medication
                WHERE patient_id = ? ORDER BY authored, id
                """,
                id
            ) {
                Medication(
                    code: $0.text(0),
                    display: $0.text(1),
                    status: $0.text(2),
                    dosage: $0.text(3),
                    authored: date($0[4]),
                    system: $0.text(5)
                )
            },
            observations: try rows(
                """
                SELECT c.code, c.display, c.category, o.value, o.text, c.unit, o.time, c.system
                FROM observation o JOIN observation_code c ON c.id = o.code_id
                WHERE o.id BETWEEN ? AND ? ORDER BY o.time, o.id
                """,
                RecordsLayout.observationIDs(patient: id)
            ) {
                Observation(
                    code: $0.text(0),
                    display: $0.text(1),
                    category: Observation.Category(rawValue: $0.text(2)) ?? .other,
                    value: $0[3],
                    text: $0.optionalText(4),
                    unit: $0.text(5),
                    time: date($0[6]) ?? .distantPast,
                    system: $0.text(7)
                )
            },
            encounters: try rows(
                #"SELECT kind, display, reason, start, "end" FROM encounter WHERE patient_id = ? ORDER BY start, id"#,
                id
            ) {
                Encounter(
                    kind: $0.text(0),
                    display: $0.text(1),
                    reason: $0.text(2),
                    start: date($0[3]) ?? .distantPast,
                    end: date($0[4])
                )
            },
            notes: try rows(
                "SELECT author, time, text, id, corrects FROM note WHERE patient_id = ? ORDER BY time, id",
                id
            ) {
                Note(
                    author: $0.text(0),
                    time: date($0[1]) ?? .distantPast,
                    text: $0.text(2),
                    id: $0[3],
                    corrects: $0[4]
                )
            },
            immunizations: try rows(
                "SELECT code, vaccine, status, date, system FROM immunization WHERE patient_id = ? ORDER BY date, id",
                id
            ) {
                Immunization(
                    code: $0.text(0),
                    vaccine: $0.text(1),
                    status: $0.text(2),
                    date: date($0[3]),
                    system: $0.text(4)
                )
            },
            procedures: try rows(
                """
                SELECT code, display, reason, status, performed, system FROM procedure WHERE patient_id = ?
                ORDER BY performed, id
                """,
                id
            ) {
                Procedure(
                    code: $0.text(0),
                    display: $0.text(1),
                    reason: $0.text(2),
                    status: $0.text(3),
                    performed: date($0[4]),
                    system: $0.text(5)
                )
            },
            carePlans: try rows(
                #"""
                SELECT category, activities, status, start, "end" FROM care_plan WHERE patient_id = ?
                ORDER BY start, id
                """#,
                id
            ) {
                CarePlan(
                    category: $0.text(0),
                    activities: RecordsLayout.list($0.text(1)),
                    status: $0.text(2),
                    start: date($0[3]),
                    end: date($0[4])
                )
            },
            reports: try rows(
                """
                SELECT code, name, status, date, results, conclusion, system, presented_form FROM diagnostic_report
                WHERE patient_id = ?
                ORDER BY date, id
                """,
                id
            ) {
                DiagnosticReport(
                    code: $0.text(0),
                    name: $0.text(1),
                    status: $0.text(2),
                    date: date($0[3]),
                    results: RecordsLayout.results($0.text(4)),
                    conclusion: $0.text(5),
                    system: $0.text(6),
                    presentedForm: $0.text(7)
                )
            }
        )
    }

    private func rows<T>(_ sql: String, _ id: Int64, _ make: (StatementRow) -> T) throws -> [T] {
        try rows(sql, [id], make)
    }

    private func rows<T>(_ sql: String, _ ids: ClosedRange<Int64>, _ make: (StatementRow) -> T) throws -> [T] {
        try rows(sql, [ids.lowerBound, ids.upperBound], make)
    }

    /// A section's rows, read straight from the statement (`StatementRow`): anything set up per
    /// row or per section cost more than SQLite's work for most of them.
    private func rows<T>(_ sql: String, _ arguments: [Int64], _ make: (StatementRow) -> T) throws -> [T] {
        var result: [T] = []
        try db.eachRow(sql, arguments) { result.append(make($0)) }
        return result
    }
}

/// Unix seconds from the database, or nil for NULL.
func date(_ seconds: Int64?) -> Date? {
    seconds.map { Date(timeIntervalSince1970: TimeInterval($0)) }
}
