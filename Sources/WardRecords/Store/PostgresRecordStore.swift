import Foundation
import PostgresNIO
import WardCore

/// The shared records store: one PostgreSQL database that every Ward of a site reads and writes
/// (issue 17). The embedded `SQLiteRecordStore` stays the default.
///
/// One connection, on an event-loop thread of its own (`PostgresLink`), waited on with the
/// site's bounds. A lock closes it without waiting for the server; sign-on opens a new one. A
/// connection lost mid-session fails that command only: the next connects again.
///
/// A note is one `INSERT … SELECT` of its own, so two Wards writing to one chart at the same
/// time each add their note and lose none.
public final class PostgresRecordStore: RecordStore {
    let link: PostgresLink
    private var locked = false
    /// True between `close()` and `reopen()`: every query throws `StoreError.closed`.
    var isLocked: Bool { locked }
    private var interruption: CommandInterruption.Registration?

    /// Connects and checks that the schema is this Ward's. Never migrates: that is `ward db
    /// migrate`'s (`migrateSchema`), run by an administrator while no session is connected.
    ///
    /// - Throws: `StoreError.unavailable` (exit 69) naming the server when it cannot be reached;
    ///   `SchemaError` (exit 78) for a database with no schema or an older one;
    ///   `StoreError.migrationFailed` for a newer one.
    public init(settings: PostgresSettings) throws {
        link = PostgresLink(settings: settings)
        try link.connect()
        try PostgresSchema.requireCurrent(link)
        interruption = CommandInterruption.register { [link] in link.interrupt() }
    }

    /// `ward db migrate`: creates the schema, or applies the migrations it lacks, on a
    /// connection of its own, closed when done.
    ///
    /// Unless `force`, refuses (`SchemaError.sessionsConnected`, exit 75) when there is something
    /// to apply and other Ward connections are open to the database. Statements may run for up
    /// to an hour (an index over millions of rows), whatever the site's `statement-timeout`.
    public static func migrateSchema(settings: PostgresSettings, force: Bool = false) throws -> SchemaMigration {
        var settings = settings
        settings.statementTimeout = max(settings.statementTimeout, .seconds(3600))
        let link = PostgresLink(settings: settings, applicationName: PostgresLink.migrationApplicationName)
        try link.connect()
        defer { link.close() }
        return try PostgresSchema.migrate(link, refusingWhileSessionsRun: !force)
    }

    deinit { link.close() }

    public var settings: PostgresSettings { link.settings }

    public func interrupt() { link.interrupt() }

    public func releaseMemory() {}

    public func close() {
        locked = true
        link.close()
    }

    public func reopen() throws {
        locked = false
        try link.connect()
    }

    /// A statement's rows; `StoreError.closed` while the session is locked.
    @discardableResult
    func rows(_ query: PostgresQuery) throws -> [PostgresRow] {
        guard !locked else { throw StoreError.closed }
        return try link.query(query)
    }

    /// Several statements' rows, sent together (`PostgresLink.queries`).
    func rows(_ queries: [PostgresQuery]) throws -> [[PostgresRow]] {
        guard !locked else { throw StoreError.closed }
        return try link.queries(queries)
    }

    /// Prepared statements' rows, in one wait (`PostgresLink.prepared`).
    func prepared(_ steps: [PreparedStep]) throws -> [[PostgresRow]] {
        guard !locked else { throw StoreError.closed }
        return try link.prepared(steps)
    }

    /// Decoding failures in Ward's words (the driver's mention the column's bytes).
    func decoded<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError.database(reason: "a row from the records server could not be read")
        }
    }

    // MARK: Queries

    public func find(_ text: String, limit: Int) throws -> SearchResult {
        let search = PatientSearch(text)
        guard !search.isEmpty, limit > 0 else { return .none }
        return try search.run(PostgresPatientRows(store: self), limit: limit)
    }

    public func lookUp(mrn: String) throws -> PatientMatch? {
        try PostgresPatientRows(store: self).match(mrn: mrn)?.1
    }

    public func patients(mrnStartingWith prefix: String, limit: Int) throws -> SearchResult {
        guard !prefix.isEmpty, limit > 0 else { return .none }
        let lower = prefix.lowercased(ascii: true)
        let upper = lower + "\u{10FFFF}"
        let cap = PatientSearch.countCap
        let found = try rows(
            """
            SELECT id, mrn, given, family, birth_date, sex, restricted FROM patient
            WHERE lower(mrn) COLLATE "C" >= \(lower) AND lower(mrn) COLLATE "C" < \(upper)
            ORDER BY lower(mrn) COLLATE "C" LIMIT \(limit)
            """
        )
        let counted = try rows(
            """
            SELECT count(*) FROM (SELECT 1 FROM patient
            WHERE lower(mrn) COLLATE "C" >= \(lower) AND lower(mrn) COLLATE "C" < \(upper) LIMIT \(cap + 1)) AS c
            """
        )
        return try decoded {
            let count = try counted.first?.decode(Int.self) ?? 0
            return SearchResult(
                matches: try found.map { try PostgresPatientRows.match($0).1 },
                total: min(count, cap),
                totalIsCapped: count > cap
            )
        }
    }

    public func chart(mrn: String, contents: ChartContents) throws -> LoadedChart {
        // One snapshot for every section, as SQLite's read transaction gives: the loader reads
        // the chart in one statement.
        try PostgresChartLoader(store: self).load(mrn: mrn, contents: contents)
    }

    public func addNote(mrn: String, author: String, text: String, at time: Date) throws -> Note {
        let seconds = Int64(time.timeIntervalSince1970.rounded(.down))
        let inserted = try rows(
            """
            INSERT INTO note (patient_id, author, time, text)
            SELECT id, \(author), \(seconds), \(text) FROM patient WHERE lower(mrn) COLLATE "C" = \(mrn.lowercased(ascii: true))
            RETURNING id
            """
        )
        guard !inserted.isEmpty else { throw StoreError.noSuchPatient }
        return Note(author: author, time: Date(timeIntervalSince1970: TimeInterval(seconds)), text: text)
    }

    public func patientCount() throws -> Int {
        let found = try rows("SELECT count(*) FROM patient")
        return try decoded { try found.first?.decode(Int.self) ?? 0 }
    }

    public func demoMarker() throws -> DemoMarker? {
        let found = try rows("SELECT key, value FROM meta WHERE key IN ('demo.seed', 'demo.patients')")
        var values: [String: String] = [:]
        try decoded {
            for row in found {
                let (key, value) = try row.decode((String, String).self)
                values[key] = value
            }
        }
        guard let seed = values["demo.seed"].flatMap(UInt64.init), let count = values["demo.patients"].flatMap(Int.init)
        else { return nil }
        return DemoMarker(seed: seed, patients: count)
    }
}

extension String {
    /// Lower-cased in ASCII only, as SQLite's NOCASE and PostgreSQL's `lower` in the "C" locale fold.
    func lowercased(ascii: Bool) -> String {
        String(decoding: utf8.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
    }
}

/// The PostgreSQL store's rows for `PatientSearch`: the name-token table for one word, the GIN
/// index over `patient.name_words` for several, `patient_mrn` for MRNs, one query for all the
/// candidates' rows.
struct PostgresPatientRows: PatientRowSource {
    let store: PostgresRecordStore

    func match(mrn: String) throws -> (Int64, PatientMatch)? {
        // Prepared: `open` asks it before every chart.
        let found = try store.prepared([PostgresChartStatements.match(mrn.lowercased(ascii: true))])[0]
        return try store.decoded { try found.first.map(Self.match) }
    }

    /// Every word must match, each patient once (two of a patient's words may start alike), in
    /// id order, which is FTS5's rowid order: the same candidates as the SQLite store.
    ///
    /// One word is a range of `patient_name_token`. Two or more are an intersection, which a
    /// B-tree makes only by reading every entry of every range (`mar smi`: 71,000 entries for 531
    /// patients, 16 ms at a million patients). So each word becomes the list of name words it
    /// stands for (a prefix's: the distinct words of its range, one index descent each, as in
    /// `ids(prefix:limit:)`), and the GIN index over `patient.name_words` intersects the
    /// patients of those lists, word by word (a BitmapAnd of posting lists: 3 ms for `mar smi`).
    /// The lists are subqueries of the one statement, one round trip; their size is unknown to
    /// the planner, which therefore keeps the same plan whatever the words.
    func ids(words: [String], prefix: Bool, limit: Int) throws -> [Int64] {
        if prefix, words.count == 1 { return try ids(prefix: words[0], limit: limit) }
        var binds = PostgresBindings()
        let sql: String
        if words.count == 1 {
            binds.append(words[0])
            sql = "SELECT DISTINCT patient_id FROM patient_name_token WHERE token = $1"
        } else {
            var conditions: [String] = []
            for word in words {
                binds.append(word)
                if prefix {
                    binds.append(word + "\u{10FFFF}")
                    let (low, high) = (binds.count - 1, binds.count)
                    conditions.append(
                        """
                        name_words && ARRAY(
                            WITH RECURSIVE word (token) AS (
                                SELECT min(token) FROM patient_name_token WHERE token >= $\(low) AND token < $\(high)
                                UNION ALL
                                SELECT (SELECT min(token) FROM patient_name_token WHERE token > word.token AND token < $\(high))
                                FROM word WHERE word.token IS NOT NULL
                            )
                            SELECT token FROM word WHERE token IS NOT NULL
                        )
                        """
                    )
                } else {
                    conditions.append("name_words && ARRAY[$\(binds.count)::text]")
                }
            }
            sql = "SELECT id AS patient_id FROM patient WHERE " + conditions.joined(separator: " AND ")
        }
        binds.append(limit)
        let found = try store.rows(
            PostgresQuery(unsafeSQL: sql + " ORDER BY patient_id LIMIT $\(binds.count)", binds: binds)
        )
        return try store.decoded { try found.map { try $0.decode(Int64.self) } }
    }

    /// One word as a prefix: the first `limit` ids of each name word that starts with it, then
    /// the first `limit` of those.
    ///
    /// The range with `DISTINCT … ORDER BY patient_id` sorted every entry of every matching word
    /// (`mar` is 58,000 among a million patients: 20 ms) to keep 201. The key (token,
    /// patient_id) holds each word's patients in id order, so the first `limit` of one word are
    /// the start of its range, and the first `limit` of all are among those: a walk over the
    /// distinct words (one index descent each, as a skip scan would make), then at most `limit`
    /// entries per word. It never reads more entries than the plain range holds.
    private func ids(prefix word: String, limit: Int) throws -> [Int64] {
        var binds = PostgresBindings()
        binds.append(word)
        binds.append(word + "\u{10FFFF}")
        binds.append(limit)
        let found = try store.rows(
            PostgresQuery(
                unsafeSQL: """
                    WITH RECURSIVE word (token) AS (
                        SELECT min(token) FROM patient_name_token WHERE token >= $1 AND token < $2
                        UNION ALL
                        SELECT (SELECT min(token) FROM patient_name_token WHERE token > word.token AND token < $2)
                        FROM word WHERE word.token IS NOT NULL
                    )
                    SELECT DISTINCT first.patient_id FROM word CROSS JOIN LATERAL (
                        SELECT patient_id FROM patient_name_token WHERE token = word.token ORDER BY patient_id LIMIT $3
                    ) AS first
                    ORDER BY first.patient_id LIMIT $3
                    """,
                binds: binds
            )
        )
        return try store.decoded { try found.map { try $0.decode(Int64.self) } }
    }

    func matches(ids: [Int64]) throws -> [(Int64, PatientMatch)] {
        guard !ids.isEmpty else { return [] }
        let found = try store.rows(
            "SELECT id, mrn, given, family, birth_date, sex, restricted FROM patient WHERE id = ANY(\(ids))"
        )
        return try store.decoded { try found.map(Self.match) }
    }

    static func match(_ row: PostgresRow) throws -> (Int64, PatientMatch) {
        let (id, mrn, given, family, birthDate, sex, restricted) = try row.decode(
            (Int64, String, String, String, String, String, Bool).self
        )
        return (
            id,
            PatientMatch(
                mrn: mrn,
                given: given,
                family: family,
                birthDate: birthDate,
                sex: Sex(rawValue: sex) ?? .unknown,
                restricted: restricted,
                score: 0
            )
        )
    }
}
