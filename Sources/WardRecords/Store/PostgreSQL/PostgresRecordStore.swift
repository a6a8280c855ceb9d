import FoundationEssentials
import PostgresNIO
import WardCore

/// The shared records store: one PostgreSQL database that every Ward of a site reads and writes.
/// The embedded `SQLiteRecordStore` stays the default.
///
/// One connection, on an event-loop thread of its own (`PostgresLink`), waited on with the
/// site's bounds; in a session, the one its passwords are checked on (`init(sharing:)`). A lock
/// closes it without waiting for the server; the unlock's check opens a new one. A
/// connection lost mid-session fails that command only: the next connects again, to the first
/// of the site's servers that will do (`PostgresLink`), so a session outlives a failover.
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

    /// The store of a session whose passwords `directory` checks, on the directory's connection
    /// (`PostgresUserDirectory.lend()`), whose schema it checked: one connection a session, and
    /// sign-on finds it open.
    init(sharing directory: PostgresUserDirectory) throws {
        link = directory.lend()
        try link.connect()
        interruption = CommandInterruption.register { [link] in link.interrupt() }
    }

    /// `ward db migrate`: creates the schema, or applies the migrations it lacks, on a
    /// connection of its own, closed when done.
    ///
    /// Unless `force`, refuses (`SchemaError.sessionsConnected`, exit 75) when there is something
    /// to apply and other Ward connections are open to the database. Statements may run for up
    /// to an hour (an index over millions of rows), whatever the site's `statement-timeout`.
    /// With `sessionRole`, that role is left able to do what a session does and nothing else
    /// (`PostgresSchema.grantSessionPrivileges`).
    public static func migrateSchema(
        settings: PostgresSettings,
        force: Bool = false,
        sessionRole: String? = nil
    ) throws -> SchemaMigration {
        var settings = settings
        settings.statementTimeout = max(settings.statementTimeout, .seconds(3600))
        let link = PostgresLink(settings: settings, applicationName: PostgresLink.migrationApplicationName)
        try link.connect()
        defer { link.close() }
        return try PostgresSchema.migrate(link, refusingWhileSessionsRun: !force, sessionRole: sessionRole)
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
        let cap = PatientSearch.countCap
        // One prepared statement: the rows, each with the count.
        let found = try prepared([
            PostgresFindStatements.mrnPrefix(lower, upper: lower + "\u{10FFFF}", limit: limit, cap: cap + 1)
        ])[0]
        return try PostgresLink.decoded {
            let row = (Int64, String, String, String, String, String, Bool, Int).self
            let count = try found.first.map { try $0.decode(row).7 } ?? 0
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

    public func addNote(mrn: String, author: String, text: String, at time: Date, corrects: Int64?) throws -> Note {
        let seconds = Int64(time.timeIntervalSince1970.rounded(.down))
        let key = mrn.lowercased(ascii: true)
        // A correction names a note of the same chart: checked in the same statement, so the
        // note is added only beside the one it corrects.
        let inserted = try rows(
            """
            INSERT INTO note (patient_id, author, time, text, corrects)
            SELECT id, \(author), \(seconds), \(text), \(corrects) FROM patient
            WHERE lower(mrn) COLLATE "C" = \(key)
              AND (\(corrects)::bigint IS NULL
                   OR EXISTS (SELECT 1 FROM note WHERE note.id = \(corrects) AND note.patient_id = patient.id))
            RETURNING id
            """
        )
        guard let row = inserted.first else {
            if corrects != nil, try !rows(#"SELECT 1 FROM patient WHERE lower(mrn) COLLATE "C" = \#(key)"#).isEmpty {
                throw StoreError.noSuchNote
            }
            throw StoreError.noSuchPatient
        }
        let id = try PostgresLink.decoded { try row.decode(Int64.self) }
        return Note(
            author: author,
            time: Date(timeIntervalSince1970: TimeInterval(seconds)),
            text: text,
            id: id,
            corrects: corrects
        )
    }

    public func patientCount() throws -> Int {
        let found = try rows("SELECT count(*) FROM patient")
        return try PostgresLink.decoded { try found.first?.decode(Int.self) ?? 0 }
    }

    /// Estimated from the planner's statistics (`pg_class.reltuples`, which ANALYZE and
    /// autovacuum keep) once they say `exactCountLimit` patients or more, counted below:
    /// `count(*)` reads every row of `patient`, 60-200 ms of the server's work at a million
    /// patients, at every terminal's sign-on. A table loaded and not yet analyzed has no
    /// estimate, or a stale one: its count reaches past the limit, and is then made in full.
    public func patientsAtSignOn() throws -> PatientCount {
        let found = try askedBefore(.count) ?? rows(Self.countAtSignOn)
        let (estimate, counted) = try PostgresLink.decoded {
            try found.first?.decode((Int, Int?).self) ?? (0, 0)
        }
        guard let counted else { return PatientCount.rounded(estimate) }
        return .exactly(counted <= Self.exactCountLimit ? counted : try patientCount())
    }

    /// From how many patients on the sign-on banner estimates rather than counts: counting
    /// fewer costs the server a few milliseconds.
    static let exactCountLimit = 10_000

    public func demoMarker() throws -> DemoMarker? {
        let found = try askedBefore(.demo) ?? rows(PostgresQuery(unsafeSQL: DemoMarker.metaQuery))
        return DemoMarker(meta: try PostgresLink.decoded { try found.map { try $0.decode((String, String).self) } })
    }

    private static var countAtSignOn: PostgresQuery {
        """
        SELECT reltuples::bigint, CASE WHEN reltuples < \(exactCountLimit) THEN
            (SELECT count(*) FROM (SELECT FROM patient LIMIT \(exactCountLimit + 1)) AS first) END
        FROM pg_class WHERE oid = 'patient'::regclass
        """
    }

    // MARK: The banner's questions, asked ahead

    /// The sign-on banner's two questions (`patientsAtSignOn`, `demoMarker`), asked when the
    /// session's store connects: the server answers them while the password is typed and
    /// checked, and the prompt does not wait for two more round trips and a cold catalog, some
    /// 4 ms on a socket. Neither answer is patient data, and neither is shown before sign-on.
    private var banner: BannerQuestions?

    private struct BannerQuestions {
        let asked: ContinuousClock.Instant
        let sent: PostgresLink.Sent
        /// Each question's rows once they were waited for (nil before), in the order sent; each
        /// is taken once.
        var answers: [[PostgresRow]?]?
    }

    /// The banner's questions, in the order `askBannerQuestions` sends them.
    private enum BannerQuestion: Int { case count, demo }

    /// How old an answer asked ahead may be when sign-on comes: a sign-on later than this asks
    /// again, so the banner never shows what a terminal left at its prompt learned hours before.
    var bannerFreshness: Duration = .seconds(60)

    /// Asks the banner's questions now, for the first sign-on (`askedBefore`). A failure here
    /// is left for the questions to meet again when they are asked at sign-on.
    func askBannerQuestions() {
        guard let sent = try? link.send([Self.countAtSignOn, PostgresQuery(unsafeSQL: DemoMarker.metaQuery)]) else {
            return
        }
        banner = BannerQuestions(asked: .now, sent: sent)
    }

    /// One answer asked ahead, once; nil when none was, when it is stale or failed (the caller
    /// then asks), or while the session is locked.
    private func askedBefore(_ question: BannerQuestion) -> [PostgresRow]? {
        guard !locked, var questions = banner, ContinuousClock.now - questions.asked < bannerFreshness else {
            banner = nil
            return nil
        }
        if questions.answers == nil {
            guard let rows = try? link.rows(of: questions.sent) else {
                banner = nil
                return nil
            }
            questions.answers = rows
        }
        let rows = questions.answers?[question.rawValue]
        questions.answers?[question.rawValue] = nil
        banner = questions.answers?.contains { $0 != nil } == true ? questions : nil
        return rows
    }
}

extension String {
    /// Lower-cased in ASCII only, as SQLite's NOCASE and PostgreSQL's `lower` in the "C" locale fold.
    func lowercased(ascii: Bool) -> String {
        String(decoding: utf8.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
    }
}

/// The PostgreSQL store's rows for `PatientSearch`: one statement a search
/// (`PostgresFindStatements`) answers both id lists and the candidates' rows, which `matches`
/// then hands back without asking the server again; `patient_mrn` for MRNs.
///
/// A class, for those rows: it lives for one `find`.
final class PostgresPatientRows: PatientRowSource {
    let store: PostgresRecordStore
    /// The rows read with the ids, by id.
    private var read: [Int64: PatientMatch] = [:]

    init(store: PostgresRecordStore) { self.store = store }

    func match(mrn: String) throws -> (Int64, PatientMatch)? {
        // Prepared: `open` asks it before every chart.
        let found = try store.prepared([PostgresChartStatements.match(mrn.lowercased(ascii: true))])[0]
        return try PostgresLink.decoded { try found.first.map(Self.match) }
    }

    /// Every word must match, each patient once (two of a patient's words may start alike), in
    /// id order, which is FTS5's rowid order: the same candidates as the SQLite store. One round
    /// trip, prepared for up to four words; more words are sent unnamed.
    func ids(words: [String], whole: Int, prefix: Int) throws -> (whole: [Int64], prefix: [Int64]) {
        let found =
            if let step = PostgresFindStatements.step(words: words, limit: whole, cap: prefix) {
                try store.prepared([step])[0]
            } else {
                try store.rows(PostgresFindStatements.query(words: words, limit: whole, cap: prefix))
            }
        var ids: (whole: [Int64], prefix: [Int64]) = ([], [])
        try PostgresLink.decoded {
            for row in found {
                let (part, id, mrn, given, family, birthDate, sex, restricted) = try row.decode(
                    (Int32, Int64, String?, String?, String?, String?, String?, Bool?).self
                )
                switch PostgresFindStatements.Part(rawValue: part) {
                case .whole: ids.whole.append(id)
                case .prefix, .prefixID: ids.prefix.append(id)
                case nil: throw StoreError.database(reason: "a row from the records server could not be read")
                }
                if let mrn, let given, let family, let birthDate, let sex, let restricted {
                    read[id] = Self.match(mrn, given, family, birthDate, sex, restricted)
                }
            }
        }
        // The statement's parts come in any order; each list is wanted in id order.
        ids.whole.sort()
        ids.prefix.sort()
        return ids
    }

    /// The rows `ids` read; any other id's row from the server (`PatientSearch` asks for none).
    func matches(ids: [Int64]) throws -> [(Int64, PatientMatch)] {
        let unread = ids.filter { read[$0] == nil }
        if !unread.isEmpty {
            let found = try store.rows(
                "SELECT id, mrn, given, family, birth_date, sex, restricted FROM patient WHERE id = ANY(\(unread))"
            )
            for (id, match) in try PostgresLink.decoded({ try found.map(Self.match) }) { read[id] = match }
        }
        return ids.compactMap { id in read[id].map { (id, $0) } }
    }

    static func match(_ row: PostgresRow) throws -> (Int64, PatientMatch) {
        let (id, mrn, given, family, birthDate, sex, restricted) = try row.decode(
            (Int64, String, String, String, String, String, Bool).self
        )
        return (id, match(mrn, given, family, birthDate, sex, restricted))
    }

    /// A find row's columns, unscored.
    private static func match(
        _ mrn: String,
        _ given: String,
        _ family: String,
        _ birthDate: String,
        _ sex: String,
        _ restricted: Bool
    ) -> PatientMatch {
        let sex = Sex(rawValue: sex) ?? .unknown
        return PatientMatch(
            mrn: mrn,
            given: given,
            family: family,
            birthDate: birthDate,
            sex: sex,
            restricted: restricted,
            score: 0
        )
    }
}
