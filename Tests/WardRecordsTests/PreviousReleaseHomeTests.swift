import FHIRTestSupport
import Glibc
import Testing
import WardCore

@testable import WardRecords

/// A records file as the release that used GRDB left it: its `grdb_migrations` table, made by
/// raw SQL here, is what says which migrations are applied, and Ward keeps reading and writing it.
@Suite struct PreviousReleaseHomeTests {
    /// Builds the schema up to and including `last` by running the migrations' own SQL, then
    /// records them the way GRDB did, row by row, without going through `SQLiteMigrator`.
    static func previousReleaseFile(_ path: String, through last: String) throws {
        let db = try SQLiteConnection(path: path)
        defer { db.close() }
        let migrations = SQLiteSchema.migrator.registered
        let count = try #require(migrations.firstIndex { $0.identifier == last }) + 1
        for migration in migrations.prefix(count) { try migration.migrate(db) }
        try db.execute("CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
        for migration in migrations.prefix(count) {
            try db.execute("INSERT INTO grdb_migrations (identifier) VALUES ('\(migration.identifier)')")
        }
        try db.execute(
            """
            INSERT INTO patient (id, mrn, fhir_id, given, family, birth_date, sex, phone, address, name_words)
            VALUES (1, 'M1', 'p1', 'Ada', 'Lovelace', '1815-12-10', 'female', '', '', 'ada lovelace')
            """
        )
        chmod(path, 0o600)  // as Ward creates it
    }

    @Test func aFileWithEveryMigrationRecorded_opens_andRunsNoneAgain() throws {
        let home = TemporaryHome()
        defer { home.remove() }
        try Self.previousReleaseFile(home.recordsPath, through: SQLiteSchema.patientCountMigration)
        // Any migration run again would fail: its CREATE TABLE finds the table there.
        let store = try SQLiteRecordStore(path: home.recordsPath)
        defer { store.close() }
        let applied = try store.read { try SQLiteSchema.migrator.appliedIdentifiers($0) }
        #expect(applied == Set(SQLiteSchema.migrator.migrations))
        #expect(try store.chart(mrn: "M1").patient.family == "Lovelace")
        #expect(try store.find("lovelace").matches.map(\.mrn) == ["M1"])
    }

    @Test func aFileMissingTheLastMigration_gainsIt_andRecordsItInTheSameTable() throws {
        let home = TemporaryHome()
        defer { home.remove() }
        try Self.previousReleaseFile(home.recordsPath, through: SQLiteSchema.noteCorrectionsMigration)
        let store = try SQLiteRecordStore(path: home.recordsPath)
        defer { store.close() }
        let rows: [String] = try store.read { try $0.fetchAll("SELECT identifier FROM grdb_migrations") }
        #expect(rows.sorted() == SQLiteSchema.migrator.migrations.sorted())
        #expect(try store.patientCount() == 1)  // the patient-count migration counted the patient there
    }

    @Test func migrateSchema_onAPreviousReleaseFile_reportsOnlyWhatItLacked() throws {
        let home = TemporaryHome()
        defer { home.remove() }
        try Self.previousReleaseFile(home.recordsPath, through: SQLiteSchema.noteCorrectionsMigration)
        let migration = try SQLiteRecordStore.migrateSchema(home: WardHome(path: home.path))
        #expect(migration.applied == [SQLiteSchema.patientCountMigration])
        #expect(migration.version == SQLiteSchema.migrator.migrations.count)
    }
}
