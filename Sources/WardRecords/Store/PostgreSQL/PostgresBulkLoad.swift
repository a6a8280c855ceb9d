import CSQLite
import FoundationEssentials
import PostgresNIO

/// Moves every row of a staging SQLite records file into an empty PostgreSQL records database,
/// in one transaction: `ward demo` into a shared database.
///
/// Why a staging file rather than a second writer: the demo generator writes SQLite through
/// its C API at hundreds of thousands of rows a second, and it stays the one generator for both
/// backends (the same seed gives the same rows, ids included, on either). Copying the file's
/// tables then costs one `COPY` per table (`PostgresLink.copy`), streamed, so a million
/// patients load in minutes and memory stays flat. The file is the caller's: it creates it
/// 0600 in the 0700 home and removes it.
///
/// One transaction, so a failure (or Ctrl-C, or a lost connection) leaves the database as it
/// was: the server rolls back. The database must hold no patient and no observation code:
/// rows keep the staging file's ids, which is what makes a chart read the same from both
/// backends. The name search's table (`patient_name_token`) is filled from the same
/// `NameWords.indexed(given:family:)` as the store's own writes, each patient's `name_words` from that
/// table (`PostgresSchema.fillNameWords`, with the name search's GIN indexes built again
/// after it), and every id sequence is moved past the loaded ids, so notes written later get
/// fresh ids.
struct PostgresBulkLoad {
    let link: PostgresLink
    /// The staging file, opened read-only.
    let staging: SQLiteConnection

    /// The tables copied, in an order that satisfies their references.
    static let tables = [
        "observation_code", "patient", "allergy", "problem", "medication", "observation", "encounter", "note",
        "immunization", "procedure", "care_plan", "diagnostic_report",
    ]

    /// The tables whose `id` is drawn from a sequence when a row is added without one.
    static let sequencedTables = tables.filter { $0 != "observation" }

    /// Copies the rows; `progress(done, total)` counts rows, on the calling thread.
    func run(progress: (Int, Int) -> Void) throws {
        var present: [(table: String, columns: [String], rows: Int)] = []
        for table in Self.tables {
            let columns: [String] = try staging.fetchAll("SELECT name FROM pragma_table_info(?)", [.text(table)])
            // `name_words` is SQLite's form of it; filled below.
            let copied = columns.filter { !(table == "patient" && $0 == "name_words") }
            guard !copied.isEmpty else { continue }  // a table the staging file's schema does not have yet
            present.append((table, copied, try staging.fetchOne("SELECT count(*) FROM \(table)") ?? 0))
        }
        let patients = present.first { $0.table == "patient" }?.rows ?? 0
        let total = present.map(\.rows).reduce(0, +) + patients
        var done = 0
        try link.transaction {
            // A load is one statement per table that may take minutes: the site's per-statement
            // bound is for a session's commands, and the transaction is the load's safety net.
            try link.query("SET LOCAL statement_timeout = 0")
            // Another load or import waits rather than interleaving ids with this one.
            try link.query("LOCK TABLE patient, observation_code IN SHARE ROW EXCLUSIVE MODE")
            let holding = try link.query(
                "SELECT EXISTS (SELECT 1 FROM patient) OR EXISTS (SELECT 1 FROM observation_code)"
            )
            if try holding.first?.decode(Bool.self) ?? true {
                throw StoreError.databaseHasRecords(server: link.server)
            }
            let foreignKeys = try dropForeignKeys()
            let searchIndexes = try dropSearchIndexes()
            for (table, columns, rows) in present where rows > 0 {
                try copy(table, columns: columns) {
                    done += $0
                    progress(done, total)
                }
                if table == "patient" {
                    try copyNameTokens {
                        done += $0
                        progress(done, total)
                    }
                    try link.query(PostgresQuery(unsafeSQL: PostgresSchema.fillNameWords), upTo: Self.finishing)
                }
            }
            for index in searchIndexes {
                try link.query(PostgresQuery(unsafeSQL: index), upTo: Self.finishing)
            }
            var meta: [(key: String, value: String)] = []
            try staging.eachRow("SELECT key, value FROM meta", [] as [SQLiteValue]) {
                meta.append(($0.text(0), $0.text(1)))
            }
            for (key, value) in meta {
                try link.query(
                    """
                    INSERT INTO meta (key, value) VALUES (\(key), \(value))
                    ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value
                    """
                )
            }
            for key in foreignKeys {
                // Checks every row at once: tens of millions for the observations' codes.
                try link.query(
                    PostgresQuery(unsafeSQL: "ALTER TABLE \(key.table) ADD CONSTRAINT \(key.name) \(key.definition)"),
                    upTo: Self.finishing
                )
            }
            for table in Self.sequencedTables {
                try link.query(
                    PostgresQuery(
                        unsafeSQL: """
                            SELECT setval(pg_get_serial_sequence('\(table)', 'id'), coalesce(max(id), 0) + 1, false)
                            FROM \(table)
                            """
                    )
                )
            }
            // The sign-on banner takes the count of patients from the planner's statistics
            // (`PostgresRecordStore.patientsAtSignOn`), which a fresh load has none of until
            // autovacuum comes by: until then every sign-on would count a million rows. A
            // sample of the table, once, kept when the transaction commits. A database user
            // that does not own the table is only warned by the server, and the banner counts
            // until autovacuum has run.
            try link.query("ANALYZE patient", upTo: Self.finishing)
        }
        progress(total, total)
    }

    /// How long the server may take to finish one table's COPY after its last row, or to check
    /// a foreign key added back.
    static let finishing = Duration.seconds(3600)

    /// Drops the foreign keys of the loaded tables (this transaction's, until it ends); returns
    /// them, to be added back as they were.
    ///
    /// Checked row by row, a foreign key costs a trigger call for each of tens of millions of
    /// rows, all queued to the end of the COPY; added back once the rows are in, it is checked
    /// in one join. The definitions come from the catalog, so they are the schema's own. Only
    /// the tables' owner may drop a key: a database user that is not loads with the keys in
    /// place, more slowly.
    private func dropForeignKeys() throws -> [(table: String, name: String, definition: String)] {
        let tables = Self.tables + ["patient_name_token"]
        guard try owns(tables) else { return [] }
        let rows = try link.query(
            """
            SELECT conrelid::regclass::text, quote_ident(conname), pg_get_constraintdef(oid) FROM pg_constraint
            WHERE contype = 'f' AND conrelid = ANY(\(tables)::regclass[])
            ORDER BY conrelid::regclass::text, conname
            """
        )
        let keys = try rows.map { try $0.decode((String, String, String).self) }.map {
            (table: $0.0, name: $0.1, definition: $0.2)
        }
        for key in keys {
            try link.query(PostgresQuery(unsafeSQL: "ALTER TABLE \(key.table) DROP CONSTRAINT \(key.name)"))
        }
        return keys
    }

    /// Drops the GIN indexes of the name search (`patient_name_words`, `patient_name_prefixes`)
    /// when the user owns `patient`; returns their definitions, to be built again once every
    /// patient's `name_words` is set.
    ///
    /// Setting a million patients' `name_words` (`PostgresSchema.fillNameWords`) through the
    /// indexes inserts each patient's words and prefixes entry by entry; built after, each index
    /// is one sort of its entries.
    private func dropSearchIndexes() throws -> [String] {
        guard try owns(["patient"]) else { return [] }
        let rows = try link.query(
            """
            SELECT quote_ident(indexname), indexdef FROM pg_indexes
            WHERE schemaname = current_schema() AND tablename = 'patient'
              AND indexname IN ('patient_name_words', 'patient_name_prefixes')
            ORDER BY indexname
            """
        )
        let indexes = try rows.map { try $0.decode((String, String).self) }
        for (name, _) in indexes { try link.query(PostgresQuery(unsafeSQL: "DROP INDEX \(name)")) }
        return indexes.map(\.1)
    }

    /// Whether the load's user owns every table of `tables` (or is a member of the owner's
    /// role): only the owner may drop a table's keys and indexes.
    private func owns(_ tables: [String]) throws -> Bool {
        let owner = try link.query(
            """
            SELECT bool_and(pg_has_role(relowner, 'USAGE')) FROM pg_class
            WHERE oid = ANY(\(tables)::regclass[])
            """
        )
        return try owner.first?.decode(Bool?.self) == true
    }

    /// One table, whole, in rowid order; `advanced(rows)` after each chunk.
    private func copy(_ table: String, columns: [String], advanced: (Int) -> Void) throws {
        let list = columns.map { "\"\($0)\"" }.joined(separator: ", ")
        try each("SELECT \(list) FROM \(table)", into: (table, columns), advanced: advanced) { statement, text in
            for index in 0..<Int32(columns.count) { try text.appendColumn(statement, index, first: index == 0) }
            text.endRow()
        }
    }

    /// The name search's rows: each distinct word of each patient's names.
    private func copyNameTokens(advanced: (Int) -> Void) throws {
        let target = ("patient_name_token", ["token", "patient_id"])
        try each("SELECT id, given, family FROM patient", into: target, advanced: advanced) { statement, text in
            let id = sqlite3_column_int64(statement, 0)
            for token in NameWords.indexed(given: string(statement, 1), family: string(statement, 2)) {
                try text.appendColumn(token, first: true)
                text.appendColumn(id, first: false)
                text.endRow()
            }
        }
    }

    /// Runs `sql` on the staging file inside a COPY into `target`: `row` turns each of its rows
    /// into COPY text, sent a chunk at a time; `advanced(rows)` after each chunk.
    private func each(
        _ sql: String,
        into target: (table: String, columns: [String]),
        advanced: (Int) -> Void,
        _ row: (OpaquePointer, inout CopyText) throws -> Void
    ) throws {
        let statement = try staging.prepare(sql)
        let handle = statement.handle
        defer { sqlite3_reset(statement.handle) }  // and keeps the statement alive until here
        try withoutActuallyEscaping(row) { row in
            try withoutActuallyEscaping(advanced) { advanced in
                try link.copy(into: target.table, columns: target.columns, finishing: Self.finishing) { send in
                    var text = CopyText()
                    var rows = 0
                    while try step(handle) {
                        try row(handle, &text)
                        rows += 1
                        if text.isFull {
                            try send(text.take())
                            advanced(rows)
                            rows = 0
                        }
                    }
                    try send(text.take())
                    advanced(rows)
                }
            }
        }
    }

    /// Steps the staging statement: true on a row, false at the end.
    private func step(_ statement: OpaquePointer) throws -> Bool {
        switch sqlite3_step(statement) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let code: throw StoreError.database(reason: "the staging file could not be read (SQLite error \(code))")
        }
    }

    private func string(_ statement: OpaquePointer, _ index: Int32) -> String {
        guard let text = sqlite3_column_text(statement, index) else { return "" }
        return String(
            decoding: UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(statement, index))),
            as: UTF8.self
        )
    }
}
