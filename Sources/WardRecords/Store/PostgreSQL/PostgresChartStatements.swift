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

    /// `lookUp`'s find row.
    static func match(_ key: String) -> PreparedStep { PreparedStep(ByMRN<Match>(key: key)) }

    /// The chart's patient alone (`.demographics`): one statement is one snapshot.
    static func patient(_ key: String) -> PreparedStep { PreparedStep(ByMRN<Patient>(key: key)) }

    /// The full chart: the patient and its sections in one statement, so one round trip and
    /// one snapshot (`Chart`).
    static func chart(_ key: String) -> PreparedStep { PreparedStep(ByMRN<Chart>(key: key)) }

    /// The patient's id, for the sections.
    private static let patientID = #"(SELECT id FROM patient WHERE lower(mrn) COLLATE "C" = $1)"#

    /// The part of a chart a row of `Chart` belongs to, in `LoadedChart`'s order.
    enum Section: Int32 {
        case patient, allergies, problems, medications, observations, encounters, notes, immunizations, procedures,
            carePlans, reports
    }

    /// One part of `Chart`: its section, its place in the part's `order`, its values in typed
    /// slots (`texts` fill `t1`…`t7`, `times` `i1` and `i2`, then a number and a flag, the slots
    /// it does not use NULL), and the rest of its statement. A value keeps its column's type on
    /// the wire, so it decodes to the same bits as from a statement of its own.
    private static func part(
        _ section: Section,
        order: String,
        texts: [String],
        times: [String] = [],
        number: String = "NULL::float8",
        flag: String = "NULL::boolean",
        from: String
    ) -> String {
        let texts = (0..<7).map { $0 < texts.count ? "\(texts[$0])::text" : "NULL::text" }
        let times = (0..<2).map { $0 < times.count ? "\(times[$0])::bigint" : "NULL::bigint" }
        let values = (texts + times + [number, flag]).joined(separator: ", ")
        return """
            (SELECT \(section.rawValue)::int4 AS section, row_number() OVER (ORDER BY \(order)) AS place, \(values)
            \(from))
            """
    }

    /// The patient and the ten sections, each in the order `SQLiteChartLoader` reads SQLite's
    /// (`NULLS FIRST` sorts as SQLite does), as one `UNION ALL` sorted by section and place:
    /// one statement is one snapshot, so no transaction is needed, and one round trip where a
    /// statement a section took thirteen. A patient that is not there has no rows at all.
    ///
    /// The observations find their ids by two scalar subqueries, not a join: a join's range is
    /// estimated at a ninth of the table (millions of rows), which sorts and JIT-compiles for a
    /// chart of a hundred (`RecordsLayout.observationIDs`).
    enum Chart: Text {
        static let name = "ward.chart"
        static let sql: String = {
            let first = Int64(1) << RecordsLayout.observationIDBits
            let byPatient = "WHERE patient_id = \(patientID)"
            let parts = [
                part(
                    .patient,
                    order: "id",
                    texts: ["mrn", "given", "family", "birth_date", "sex", "phone", "address"],
                    flag: "restricted",
                    from: #"FROM patient WHERE lower(mrn) COLLATE "C" = $1"#
                ),
                part(
                    .allergies,
                    order: "id",
                    texts: ["substance", "code", "criticality", "category", "status", "system"],
                    times: ["recorded"],
                    from: "FROM allergy \(byPatient)"
                ),
                part(
                    .problems,
                    order: "onset NULLS FIRST, id",
                    texts: ["code", "display", "status", "system"],
                    times: ["onset", "abated"],
                    from: "FROM problem \(byPatient)"
                ),
                part(
                    .medications,
                    order: "authored NULLS FIRST, id",
                    texts: ["code", "display", "status", "dosage", "system"],
                    times: ["authored"],
                    from: "FROM medication \(byPatient)"
                ),
                part(
                    .observations,
                    order: "o.time, o.id",
                    texts: ["c.code", "c.display", "c.category", "o.text", "c.unit", "c.system"],
                    times: ["o.time"],
                    number: "o.value",
                    from: #"""
                        FROM observation o JOIN observation_code c ON c.id = o.code_id
                        WHERE o.id BETWEEN (SELECT id * \#(first) FROM patient WHERE lower(mrn) COLLATE "C" = $1)
                            AND (SELECT id * \#(first) + \#(first - 1) FROM patient WHERE lower(mrn) COLLATE "C" = $1)
                        """#
                ),
                part(
                    .encounters,
                    order: "start, id",
                    texts: ["kind", "display", "reason"],
                    times: ["start", #""end""#],
                    from: "FROM encounter \(byPatient)"
                ),
                part(
                    .notes,
                    order: "time, id",
                    texts: ["author", "text"],
                    // The note's number and the one it corrects ride in the time slots: both
                    // are bigint, as a time is, and a note has one time.
                    times: ["time", "id"],
                    number: "corrects::float8",
                    from: "FROM note \(byPatient)"
                ),
                part(
                    .immunizations,
                    order: "date NULLS FIRST, id",
                    texts: ["code", "vaccine", "status", "system"],
                    times: ["date"],
                    from: "FROM immunization \(byPatient)"
                ),
                part(
                    .procedures,
                    order: "performed NULLS FIRST, id",
                    texts: ["code", "display", "reason", "status", "system"],
                    times: ["performed"],
                    from: "FROM procedure \(byPatient)"
                ),
                part(
                    .carePlans,
                    order: "start NULLS FIRST, id",
                    texts: ["category", "activities", "status"],
                    times: ["start", #""end""#],
                    from: "FROM care_plan \(byPatient)"
                ),
                part(
                    .reports,
                    order: "date NULLS FIRST, id",
                    texts: ["code", "name", "status", "results", "conclusion", "system", "presented_form"],
                    times: ["date"],
                    from: "FROM diagnostic_report \(byPatient)"
                ),
            ]
            return parts.joined(separator: "\nUNION ALL\n") + "\nORDER BY section, place"
        }()
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
}
