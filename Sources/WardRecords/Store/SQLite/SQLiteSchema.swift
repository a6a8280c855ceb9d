/// The records schema, as versioned migrations.
///
/// Two steps rather than one so the demo generator can load rows into bare tables
/// (`migrate(upTo: tablesMigration)`), then build every index and the name search once at the
/// end, which is several times faster than keeping them up to date row by row. An ordinary open
/// runs both; on an empty database the second step's FTS rebuild costs nothing.
///
/// Times are INTEGER Unix seconds (compact, sortable, no zone to parse); a birth date is TEXT
/// `YYYY-MM-DD`, because it is a calendar date, not an instant. Observation codes live in their
/// own table: the same few hundred LOINC codes, displays and units repeat across tens of millions
/// of rows, and keeping them out of the row halves the size of the biggest table.
///
/// The tables' layout, which the PostgreSQL schema shares, is `RecordsLayout`'s.
///
/// - Important: never edit a migration that has shipped; add a new one after it.
enum SQLiteSchema {
    static let tablesMigration = "1-tables"
    static let indexesMigration = "2-indexes-and-name-search"
    /// Immunizations, procedures, care plans and diagnostic reports. A database
    /// written before it gains the empty tables on its next open; its charts read as before.
    static let careRecordsMigration = "3-immunizations-procedures-care-plans-reports"
    /// Each code's system (`http://loinc.org`…), so typed JSON can say which code a row holds,
    /// and a report's `presentedForm`. Columns added with an empty default: rows
    /// written before read as before, with no system, and `ALTER TABLE ADD COLUMN` rewrites no
    /// row, so a demo home of tens of millions of observations migrates at once.
    static let codeSystemsMigration = "4-code-systems-and-presented-forms"
    /// Each patient's name words in one indexed column, for PostgreSQL's search of two or more
    /// prefixes (`PostgresSchema`). Nothing on SQLite, whose FTS5 index already
    /// intersects words: registered under the same name so that both stores count the same
    /// migrations and `ward db migrate` reports the same version on either.
    static let nameWordsMigration = "5-name-words"
    /// An index of each patient's name-word prefixes, for PostgreSQL's search of two or more
    /// prefixes (`PostgresSchema`). Nothing on SQLite, as `nameWordsMigration`.
    static let namePrefixesMigration = "6-name-prefixes"
    /// Names found as typed (`NameWords`): O'Brien by `obrien`, Søndergaard by `sondergaard`.
    /// SQLite's full-text index moves from the raw names, which its tokenizer split at the
    /// apostrophe and could not fold (ø, æ, ß…), to `patient.name_words`, which Ward fills with
    /// the folded words; every patient's words are written once, here. PostgreSQL adds the
    /// joined and folded words to the ones it holds (`PostgresSchema`).
    static let foldedNamesMigration = "7-folded-names"
    /// The site's users, their lockouts and sign-ons in the shared database
    /// (`PostgresSiteUsers`). Nothing on SQLite: a home's users stay in its own file.
    static let siteUsersMigration = "8-site-users"
    /// The site's live sessions, on PostgreSQL only (`PostgresSessionDirectory`): a home's
    /// sessions list themselves in its files. Nothing on SQLite, as `nameWordsMigration`.
    static let liveSessionsMigration = "9-live-sessions"
    /// The site's audit trail in the shared database, beside each host's file (`PostgresSchema`).
    /// Nothing on SQLite, whose home is one host's and whose file is the trail: registered
    /// under the same name, as `nameWordsMigration`.
    static let auditTrailMigration = "10-audit-trail"
    /// Notes are only ever added: a correction is a new note naming the one it corrects, in a
    /// nullable column, so every note written before reads as a note of its own.
    static let noteCorrectionsMigration = "11-note-corrections"
    /// The number of patients, kept in `meta` (key `patientCountKey`) by triggers on `patient`,
    /// so the sign-on banner reads one row instead of counting a million. Nothing on
    /// PostgreSQL, which estimates the count from its statistics (`PostgresRecordStore`): one
    /// row that every host's imports update would make them wait on one another.
    static let patientCountMigration = "12-patient-count"
    /// The `meta` key of the patient count (`patientCountMigration`).
    static let patientCountKey = "patient.count"

    static var migrator: SQLiteMigrator {
        var migrator = SQLiteMigrator()
        migrator.registerMigration(tablesMigration) { db in
            try db.execute(
                """
                CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
                CREATE TABLE patient (
                    id INTEGER PRIMARY KEY,
                    mrn TEXT NOT NULL COLLATE NOCASE,
                    fhir_id TEXT,
                    given TEXT NOT NULL,
                    family TEXT NOT NULL,
                    birth_date TEXT NOT NULL,
                    sex TEXT NOT NULL,
                    phone TEXT NOT NULL,
                    address TEXT NOT NULL,
                    restricted INTEGER NOT NULL DEFAULT 0
                );
                CREATE TABLE allergy (
                    id INTEGER PRIMARY KEY,
                    patient_id INTEGER NOT NULL REFERENCES patient(id) ON DELETE CASCADE,
                    substance TEXT NOT NULL,
                    code TEXT NOT NULL,
                    criticality TEXT NOT NULL,
                    category TEXT NOT NULL,
                    status TEXT NOT NULL,
                    recorded INTEGER
                );
                CREATE TABLE problem (
                    id INTEGER PRIMARY KEY,
                    patient_id INTEGER NOT NULL REFERENCES patient(id) ON DELETE CASCADE,
                    code TEXT NOT NULL,
                    display TEXT NOT NULL,
                    status TEXT NOT NULL,
                    onset INTEGER,
                    abated INTEGER
                );
                CREATE TABLE medication (
                    id INTEGER PRIMARY KEY,
                    patient_id INTEGER NOT NULL REFERENCES patient(id) ON DELETE CASCADE,
                    code TEXT NOT NULL,
                    display TEXT NOT NULL,
                    status TEXT NOT NULL,
                    dosage TEXT NOT NULL,
                    authored INTEGER
                );
                CREATE TABLE observation_code (
                    id INTEGER PRIMARY KEY,
                    code TEXT NOT NULL,
                    display TEXT NOT NULL,
                    unit TEXT NOT NULL,
                    category TEXT NOT NULL,
                    UNIQUE (code, display, unit, category)
                );
                CREATE TABLE observation (
                    id INTEGER PRIMARY KEY,
                    code_id INTEGER NOT NULL REFERENCES observation_code(id),
                    value REAL,
                    text TEXT,
                    time INTEGER NOT NULL
                );
                CREATE TABLE encounter (
                    id INTEGER PRIMARY KEY,
                    patient_id INTEGER NOT NULL REFERENCES patient(id) ON DELETE CASCADE,
                    kind TEXT NOT NULL,
                    display TEXT NOT NULL,
                    reason TEXT NOT NULL,
                    start INTEGER NOT NULL,
                    "end" INTEGER
                );
                CREATE TABLE note (
                    id INTEGER PRIMARY KEY,
                    patient_id INTEGER NOT NULL REFERENCES patient(id) ON DELETE CASCADE,
                    author TEXT NOT NULL,
                    time INTEGER NOT NULL,
                    text TEXT NOT NULL
                );
                """
            )
        }
        migrator.registerMigration(indexesMigration) { db in
            // External-content FTS5: the names are stored once, in `patient`; the index holds
            // tokens only. Prefix indexes make `find smi` a lookup instead of a scan of terms.
            try db.execute(
                """
                CREATE UNIQUE INDEX patient_mrn ON patient(mrn);
                CREATE INDEX patient_fhir_id ON patient(fhir_id) WHERE fhir_id IS NOT NULL;
                CREATE INDEX allergy_patient ON allergy(patient_id);
                CREATE INDEX problem_patient ON problem(patient_id);
                CREATE INDEX medication_patient ON medication(patient_id);
                CREATE INDEX encounter_patient ON encounter(patient_id, start);
                CREATE INDEX note_patient ON note(patient_id, time);
                CREATE VIRTUAL TABLE patient_fts USING fts5(
                    given, family,
                    content='patient', content_rowid='id',
                    tokenize='unicode61 remove_diacritics 2',
                    prefix='1 2 3'
                );
                CREATE TRIGGER patient_fts_insert AFTER INSERT ON patient BEGIN
                    INSERT INTO patient_fts(rowid, given, family) VALUES (new.id, new.given, new.family);
                END;
                CREATE TRIGGER patient_fts_delete AFTER DELETE ON patient BEGIN
                    INSERT INTO patient_fts(patient_fts, rowid, given, family)
                        VALUES ('delete', old.id, old.given, old.family);
                END;
                CREATE TRIGGER patient_fts_update AFTER UPDATE OF given, family ON patient BEGIN
                    INSERT INTO patient_fts(patient_fts, rowid, given, family)
                        VALUES ('delete', old.id, old.given, old.family);
                    INSERT INTO patient_fts(rowid, given, family) VALUES (new.id, new.given, new.family);
                END;
                INSERT INTO patient_fts(patient_fts) VALUES ('rebuild');
                """
            )
        }
        migrator.registerMigration(careRecordsMigration) { db in
            // A list (a plan's activities, a report's results) is one TEXT column holding a JSON
            // array of strings: read whole with its row, never queried by element, and JSON keeps
            // every character of a name (U+0000 included) where a separator would split on it.
            try db.execute(
                """
                CREATE TABLE immunization (
                    id INTEGER PRIMARY KEY,
                    patient_id INTEGER NOT NULL REFERENCES patient(id) ON DELETE CASCADE,
                    code TEXT NOT NULL,
                    vaccine TEXT NOT NULL,
                    status TEXT NOT NULL,
                    date INTEGER
                );
                CREATE TABLE procedure (
                    id INTEGER PRIMARY KEY,
                    patient_id INTEGER NOT NULL REFERENCES patient(id) ON DELETE CASCADE,
                    code TEXT NOT NULL,
                    display TEXT NOT NULL,
                    reason TEXT NOT NULL,
                    status TEXT NOT NULL,
                    performed INTEGER
                );
                CREATE TABLE care_plan (
                    id INTEGER PRIMARY KEY,
                    patient_id INTEGER NOT NULL REFERENCES patient(id) ON DELETE CASCADE,
                    category TEXT NOT NULL,
                    activities TEXT NOT NULL,
                    status TEXT NOT NULL,
                    start INTEGER,
                    "end" INTEGER
                );
                CREATE TABLE diagnostic_report (
                    id INTEGER PRIMARY KEY,
                    patient_id INTEGER NOT NULL REFERENCES patient(id) ON DELETE CASCADE,
                    code TEXT NOT NULL,
                    name TEXT NOT NULL,
                    status TEXT NOT NULL,
                    date INTEGER,
                    results TEXT NOT NULL,
                    conclusion TEXT NOT NULL
                );
                CREATE INDEX immunization_patient ON immunization(patient_id, date);
                CREATE INDEX procedure_patient ON procedure(patient_id, performed);
                CREATE INDEX care_plan_patient ON care_plan(patient_id, start);
                CREATE INDEX diagnostic_report_patient ON diagnostic_report(patient_id, date);
                """
            )
        }
        migrator.registerMigration(codeSystemsMigration) { db in
            // `observation_code` keeps its uniqueness on (code, display, unit, category): the first
            // system written for those wins, which is the one source's in every real export.
            for table in [
                "allergy", "problem", "medication", "observation_code", "immunization", "procedure",
                "diagnostic_report",
            ] {
                try db.execute("ALTER TABLE \(table) ADD COLUMN system TEXT NOT NULL DEFAULT ''")
            }
            try db.execute("ALTER TABLE diagnostic_report ADD COLUMN presented_form TEXT NOT NULL DEFAULT ''")
        }
        migrator.registerMigration(nameWordsMigration) { _ in }
        migrator.registerMigration(namePrefixesMigration) { _ in }
        migrator.registerMigration(foldedNamesMigration) { db in
            try db.execute(
                """
                DROP TRIGGER patient_fts_insert;
                DROP TRIGGER patient_fts_delete;
                DROP TRIGGER patient_fts_update;
                DROP TABLE patient_fts;
                ALTER TABLE patient ADD COLUMN name_words TEXT NOT NULL DEFAULT '';
                """
            )
            var words: [(Int64, String)] = []
            try db.eachRow("SELECT id, given, family FROM patient", [] as [SQLiteValue]) { row in
                words.append((row.int64(0), NameWords.column(given: row.text(1), family: row.text(2))))
            }
            let update = try db.prepare("UPDATE patient SET name_words = ? WHERE id = ?")
            for (id, column) in words { try update.run([.text(column), .integer(id)]) }
            try db.execute(
                """
                CREATE VIRTUAL TABLE patient_fts USING fts5(
                    name_words,
                    content='patient', content_rowid='id',
                    tokenize='unicode61 remove_diacritics 2',
                    prefix='1 2 3'
                );
                CREATE TRIGGER patient_fts_insert AFTER INSERT ON patient BEGIN
                    INSERT INTO patient_fts(rowid, name_words) VALUES (new.id, new.name_words);
                END;
                CREATE TRIGGER patient_fts_delete AFTER DELETE ON patient BEGIN
                    INSERT INTO patient_fts(patient_fts, rowid, name_words) VALUES ('delete', old.id, old.name_words);
                END;
                CREATE TRIGGER patient_fts_update AFTER UPDATE OF name_words ON patient BEGIN
                    INSERT INTO patient_fts(patient_fts, rowid, name_words) VALUES ('delete', old.id, old.name_words);
                    INSERT INTO patient_fts(rowid, name_words) VALUES (new.id, new.name_words);
                END;
                INSERT INTO patient_fts(patient_fts) VALUES ('rebuild');
                """
            )
        }
        migrator.registerMigration(siteUsersMigration) { _ in }
        migrator.registerMigration(liveSessionsMigration) { _ in }
        migrator.registerMigration(auditTrailMigration) { _ in }
        migrator.registerMigration(noteCorrectionsMigration) { db in
            try db.execute("ALTER TABLE note ADD COLUMN corrects INTEGER REFERENCES note(id)")
        }
        migrator.registerMigration(patientCountMigration) { db in
            // Ward adds patients (imports, the demo) and deletes none, but the triggers count
            // both ways so that the row stays true whatever writes the file. A REPLACE would
            // delete without firing the delete trigger; no writer uses one.
            try db.execute(
                """
                INSERT OR REPLACE INTO meta (key, value)
                    VALUES ('\(patientCountKey)', (SELECT count(*) FROM patient));
                CREATE TRIGGER patient_count_insert AFTER INSERT ON patient BEGIN
                    UPDATE meta SET value = value + 1 WHERE key = '\(patientCountKey)';
                END;
                CREATE TRIGGER patient_count_delete AFTER DELETE ON patient BEGIN
                    UPDATE meta SET value = value - 1 WHERE key = '\(patientCountKey)';
                END;
                """
            )
        }
        return migrator
    }
}
