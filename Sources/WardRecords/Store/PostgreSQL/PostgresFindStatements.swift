import PostgresNIO

/// The statements of `find` on PostgreSQL: one statement a search, prepared once per connection
/// for one to four words (`PostgresLink.prepared`), so a `find` by name is one round trip where
/// it was four, each an unnamed statement the server parsed and planned again. Their texts are
/// Ward's own, never built from input: the words are parameters.
///
/// A search's statement answers all that `PatientSearch.run` asks of its source, in `Part`s: the
/// whole-word matches and the prefix matches, each in id order (the FTS5 rowid order of the
/// SQLite store), with the rows of the first `limit` of each, the only candidates the search
/// reads. The parameters: `$1` the words (`text[]`), `$2` each word followed by U+10FFFF, the
/// upper bound of its prefix range, `$3` the limit, `$4` how many prefix matches to count.
///
/// Every value the plan could depend on is behind a scalar subquery (`(SELECT $3)`), which the
/// planner cannot see into: the plan is the same for any words and limits, so after its first
/// five runs the server keeps the generic one and stops planning (`plan_cache_mode = auto` keeps
/// re-planning while a custom plan looks cheaper, which a visible `LIMIT` made it). It also keeps
/// the plan from ever walking the whole table in id order for a `LIMIT`: with the words visible,
/// a custom plan could guess that many patients hold them (EXPLAIN on a million patients).
enum PostgresFindStatements {
    /// What a row of a search's answer is.
    enum Part: Int32 {
        /// A whole-word match, with its row.
        case whole
        /// One of the first `limit` prefix matches, with its row.
        case prefix
        /// A later prefix match: its id only, for the count.
        case prefixID
    }

    /// The statement for `words` words as a prepared step, or nil past four: those are rare,
    /// and run unnamed (`query`).
    static func step(words: [String], limit: Int, cap: Int) -> PreparedStep? {
        switch words.count {
        case 1: PreparedStep(ByWords<One>(words: words, limit: limit, cap: cap))
        case 2: PreparedStep(ByWords<Two>(words: words, limit: limit, cap: cap))
        case 3: PreparedStep(ByWords<Three>(words: words, limit: limit, cap: cap))
        case 4: PreparedStep(ByWords<Four>(words: words, limit: limit, cap: cap))
        default: nil
        }
    }

    /// The same statement, unnamed, for any number of words.
    static func query(words: [String], limit: Int, cap: Int) -> PostgresQuery {
        PostgresQuery(unsafeSQL: sql(words: words.count), binds: bindings(words: words, limit: limit, cap: cap))
    }

    /// `patients(mrnStartingWith:)`: the first `$3` rows whose lower-cased MRN is in [`$1`, `$2`),
    /// each with how many there are, counted up to `$4`; no row when none is.
    static func mrnPrefix(_ lower: String, upper: String, limit: Int, cap: Int) -> PreparedStep {
        PreparedStep(MRNPrefix(lower: lower, upper: upper, limit: limit, cap: cap))
    }

    /// A statement of `Text` over a search's words.
    struct ByWords<T: PostgresChartStatements.Text>: PostgresPreparedStatement {
        typealias Row = PostgresRow
        static var name: String { T.name }
        static var sql: String { T.sql }
        static var bindingDataTypes: [PostgresDataType] { [.textArray, .textArray, .int8, .int8] }
        let words: [String]
        let limit: Int
        let cap: Int

        func makeBindings() throws -> PostgresBindings {
            PostgresFindStatements.bindings(words: words, limit: limit, cap: cap)
        }

        func decodeRow(_ row: PostgresRow) throws -> PostgresRow { row }
    }

    struct MRNPrefix: PostgresPreparedStatement {
        typealias Row = PostgresRow
        static let name = "ward.find.mrn"
        /// The bounds behind subqueries too: a custom plan for `W`, which every MRN starts with,
        /// counted by a sequential scan (0.2 to 88 ms on a million patients, by where in the table
        /// it starts), where the index walks 201.
        static let sql = #"""
            SELECT id, mrn, given, family, birth_date, sex, restricted, (
                SELECT count(*) FROM (
                    SELECT FROM patient WHERE lower(mrn) COLLATE "C" >= (SELECT $1) AND lower(mrn) COLLATE "C" < (SELECT $2)
                    LIMIT (SELECT $4)
                ) AS counted
            )
            FROM patient WHERE lower(mrn) COLLATE "C" >= (SELECT $1) AND lower(mrn) COLLATE "C" < (SELECT $2)
            ORDER BY lower(mrn) COLLATE "C" LIMIT (SELECT $3)
            """#
        static var bindingDataTypes: [PostgresDataType] { [.text, .text, .int8, .int8] }
        let lower: String
        let upper: String
        let limit: Int
        let cap: Int

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 4)
            bindings.append(lower)
            bindings.append(upper)
            bindings.append(limit)
            bindings.append(cap)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> PostgresRow { row }
    }

    enum One: PostgresChartStatements.Text {
        static let name = "ward.find.1"
        static let sql = PostgresFindStatements.sql(words: 1)
    }

    enum Two: PostgresChartStatements.Text {
        static let name = "ward.find.2"
        static let sql = PostgresFindStatements.sql(words: 2)
    }

    enum Three: PostgresChartStatements.Text {
        static let name = "ward.find.3"
        static let sql = PostgresFindStatements.sql(words: 3)
    }

    enum Four: PostgresChartStatements.Text {
        static let name = "ward.find.4"
        static let sql = PostgresFindStatements.sql(words: 4)
    }

    fileprivate static func bindings(words: [String], limit: Int, cap: Int) -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 4)
        bindings.append(words)
        bindings.append(words.map { $0 + "\u{10FFFF}" })
        bindings.append(limit)
        bindings.append(cap)
        return bindings
    }

    /// The patient columns of a candidate's row, as `PostgresPatientRows.match` reads them.
    private static let columns = "id, mrn, given, family, birth_date, sex, restricted"

    /// The search's statement for `count` words.
    ///
    /// One word reads `patient_name_token`, whose key (token, patient_id) holds each word's
    /// patients in id order: the whole word is the start of its range, and the prefix the first
    /// `$4` ids of each word it stands for, then the first `$4` of those: never more entries than
    /// the range holds, where `DISTINCT … ORDER BY patient_id` over the range sorted all of them
    /// (`mar`: 56,453 at a million patients, 20 ms) to keep 201, and the GIN index would fetch
    /// every patient of `smith`, 14,663 heap pages, to keep 20. The candidates' rows are then read
    /// by id.
    ///
    /// Two or more are an intersection, which a B-tree makes only by reading every entry of
    /// every range (`mar smi`: 71,000 entries for 531 patients). So GIN indexes intersect them:
    /// the whole words as `name_words @>` them all, the prefixes as `ward_name_prefixes(name_words)
    /// @>` them all (migration 6: one posting list a typed word, where `&&` over `name_words` of
    /// the words each stands for merged ten lists for `mar`), the rows read by the bitmap scan
    /// itself. A typed word longer than `PostgresSchema.namePrefixLength` is looked up by its
    /// first characters, so each row found is checked against the whole word too: a filter over
    /// the row's words, skipped (an init plan, once a run) when the word is no longer. The
    /// whole-word matches are a CTE of their own so the planner cannot walk the table in id
    /// order for the `LIMIT` (every row, for words no one holds).
    static func sql(words count: Int) -> String {
        if count == 1 {
            return """
                WITH RECURSIVE word (token) AS (
                    SELECT min(token) FROM patient_name_token WHERE token >= $1[1] AND token < $2[1]
                    UNION ALL
                    SELECT (SELECT min(token) FROM patient_name_token WHERE token > word.token AND token < $2[1])
                    FROM word WHERE word.token IS NOT NULL
                ), prefix AS MATERIALIZED (
                    SELECT DISTINCT first.patient_id AS id FROM word CROSS JOIN LATERAL (
                        SELECT patient_id FROM patient_name_token WHERE token = word.token
                        ORDER BY patient_id LIMIT (SELECT $4)
                    ) AS first
                    ORDER BY 1 LIMIT (SELECT $4)
                ), whole AS MATERIALIZED (
                    SELECT patient_id AS id FROM patient_name_token WHERE token = (SELECT $1[1])
                    ORDER BY patient_id LIMIT (SELECT $3)
                )
                SELECT \(Part.whole.rawValue) AS part, \(columns) FROM patient
                WHERE id = ANY(ARRAY(SELECT id FROM whole))
                UNION ALL
                SELECT \(Part.prefix.rawValue), \(columns) FROM patient
                WHERE id = ANY(ARRAY(SELECT id FROM prefix ORDER BY id LIMIT (SELECT $3)))
                UNION ALL
                (SELECT \(Part.prefixID.rawValue), id, NULL, NULL, NULL, NULL, NULL, NULL FROM prefix
                ORDER BY id OFFSET (SELECT $3))
                """
        }
        let cut = PostgresSchema.namePrefixLength
        let prefixes =
            ["ward_name_prefixes(name_words) @> (SELECT array_agg(left(word, \(cut))) FROM unnest($1) AS word)"]
            + (1...count).map {
                """
                ((SELECT char_length($1[\($0)]) <= \(cut))
                    OR EXISTS (SELECT FROM unnest(name_words) AS word WHERE word >= $1[\($0)] AND word < $2[\($0)]))
                """
            }
        return """
            WITH whole AS MATERIALIZED (
                SELECT \(columns) FROM patient WHERE name_words @> (SELECT $1)
            ), prefix AS MATERIALIZED (
                SELECT \(columns) FROM patient
                WHERE \(prefixes.joined(separator: "\nAND "))
                ORDER BY id LIMIT (SELECT $4)
            )
            (SELECT \(Part.whole.rawValue) AS part, * FROM whole ORDER BY id LIMIT (SELECT $3))
            UNION ALL
            (SELECT \(Part.prefix.rawValue), * FROM prefix ORDER BY id LIMIT (SELECT $3))
            UNION ALL
            (SELECT \(Part.prefixID.rawValue), id, NULL, NULL, NULL, NULL, NULL, NULL FROM prefix
            ORDER BY id OFFSET (SELECT $3))
            """
    }
}
