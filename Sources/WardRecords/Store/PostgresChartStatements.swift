import PostgresNIO

/// The statements of `open` on PostgreSQL, prepared once per connection (`PostgresLink.prepared`).
/// Each finds the patient by the lower-cased MRN, `$1`, itself, so none waits for another's
/// answer. Their texts are Ward's own, never built from input.
enum PostgresChartStatements {
    /// A statement's name on the server and its text.
    protocol Text {
        static var name: String { get }
        static var sql: String { get }
    }

    /// A statement of `Text` whose one parameter is the lower-cased MRN.
    struct ByMRN<T: Text>: PostgresPreparedStatement {
        typealias Row = PostgresRow
        static var name: String { T.name }
        static var sql: String { T.sql }
        let key: String

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 1)
            bindings.append(key)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> PostgresRow { row }
    }

    /// A statement of `Text` with no parameter (the transaction's ends).
    struct Plain<T: Text>: PostgresPreparedStatement {
        typealias Row = PostgresRow
        static var name: String { T.name }
        static var sql: String { T.sql }

        func makeBindings() throws -> PostgresBindings { PostgresBindings() }

        func decodeRow(_ row: PostgresRow) throws -> PostgresRow { row }
    }

    /// `lookUp`'s find row.
    static func match(_ key: String) -> PreparedStep { PreparedStep(ByMRN<Match>(key: key)) }

    /// The chart's patient alone (`.demographics`): one statement is one snapshot.
    static func patient(_ key: String) -> PreparedStep { PreparedStep(ByMRN<Patient>(key: key)) }

    /// The full chart: a read-only snapshot around the patient and the sections in
    /// `LoadedChart`'s order.
    static func chart(_ key: String) -> [PreparedStep] {
        [
            PreparedStep(Plain<Begin>()),
            PreparedStep(ByMRN<Patient>(key: key)),
            PreparedStep(ByMRN<Allergies>(key: key)),
            PreparedStep(ByMRN<Problems>(key: key)),
            PreparedStep(ByMRN<Medications>(key: key)),
            PreparedStep(ByMRN<Observations>(key: key)),
            PreparedStep(ByMRN<Encounters>(key: key)),
            PreparedStep(ByMRN<Notes>(key: key)),
            PreparedStep(ByMRN<Immunizations>(key: key)),
            PreparedStep(ByMRN<Procedures>(key: key)),
            PreparedStep(ByMRN<CarePlans>(key: key)),
            PreparedStep(ByMRN<Reports>(key: key)),
            PreparedStep(Plain<Commit>()),
        ]
    }

    /// The patient's id, for the sections.
    private static let patientID = #"(SELECT id FROM patient WHERE lower(mrn) COLLATE "C" = $1)"#

    enum Begin: Text {
        static let name = "ward.begin.snapshot"
        static let sql = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"
    }

    enum Commit: Text {
        static let name = "ward.commit"
        static let sql = "COMMIT"
    }

    enum Match: Text {
        static let name = "ward.match"
        static let sql = #"""
            SELECT id, mrn, given, family, birth_date, sex, restricted FROM patient
            WHERE lower(mrn) COLLATE "C" = $1
            """#
    }

    enum Patient: Text {
        static let name = "ward.chart.patient"
        static let sql = #"""
            SELECT mrn, given, family, birth_date, sex, phone, address, restricted FROM patient
            WHERE lower(mrn) COLLATE "C" = $1
            """#
    }

    enum Allergies: Text {
        static let name = "ward.chart.allergies"
        static let sql = """
            SELECT substance, code, criticality, category, status, recorded, system FROM allergy
            WHERE patient_id = \(patientID) ORDER BY id
            """
    }

    /// `NULLS FIRST` here and below sorts as SQLite does.
    enum Problems: Text {
        static let name = "ward.chart.problems"
        static let sql = """
            SELECT code, display, status, onset, abated, system FROM problem
            WHERE patient_id = \(patientID) ORDER BY onset NULLS FIRST, id
            """
    }

    enum Medications: Text {
        static let name = "ward.chart.medications"
        static let sql = """
            SELECT code, display, status, dosage, authored, system FROM medication
            WHERE patient_id = \(patientID) ORDER BY authored NULLS FIRST, id
            """
    }

    /// The observation ids of `RecordsSchema.observationIDs`, from the patient's id. Two scalar
    /// subqueries, not a join: a join's range is estimated at a ninth of the table (millions of
    /// rows), which sorts and JIT-compiles for a chart of a hundred.
    enum Observations: Text {
        static let name = "ward.chart.observations"
        static var sql: String {
            let first = Int64(1) << RecordsSchema.observationIDBits
            return #"""
                SELECT c.code, c.display, c.category, o.value, o.text, c.unit, o.time, c.system
                FROM observation o JOIN observation_code c ON c.id = o.code_id
                WHERE o.id BETWEEN (SELECT id * \#(first) FROM patient WHERE lower(mrn) COLLATE "C" = $1)
                    AND (SELECT id * \#(first) + \#(first - 1) FROM patient WHERE lower(mrn) COLLATE "C" = $1)
                ORDER BY o.time, o.id
                """#
        }
    }

    enum Encounters: Text {
        static let name = "ward.chart.encounters"
        static let sql = """
            SELECT kind, display, reason, start, "end" FROM encounter
            WHERE patient_id = \(patientID) ORDER BY start, id
            """
    }

    enum Notes: Text {
        static let name = "ward.chart.notes"
        static let sql = """
            SELECT author, time, text FROM note WHERE patient_id = \(patientID) ORDER BY time, id
            """
    }

    enum Immunizations: Text {
        static let name = "ward.chart.immunizations"
        static let sql = """
            SELECT code, vaccine, status, date, system FROM immunization
            WHERE patient_id = \(patientID) ORDER BY date NULLS FIRST, id
            """
    }

    enum Procedures: Text {
        static let name = "ward.chart.procedures"
        static let sql = """
            SELECT code, display, reason, status, performed, system FROM procedure
            WHERE patient_id = \(patientID) ORDER BY performed NULLS FIRST, id
            """
    }

    enum CarePlans: Text {
        static let name = "ward.chart.care-plans"
        static let sql = """
            SELECT category, activities, status, start, "end" FROM care_plan
            WHERE patient_id = \(patientID) ORDER BY start NULLS FIRST, id
            """
    }

    enum Reports: Text {
        static let name = "ward.chart.reports"
        static let sql = """
            SELECT code, name, status, date, results, conclusion, system, presented_form FROM diagnostic_report
            WHERE patient_id = \(patientID) ORDER BY date NULLS FIRST, id
            """
    }
}
