import Foundation
import PostgresTestSupport
import Testing
import WardCore

@testable import WardRecords

/// The count the sign-on banner shows, read without counting: kept by triggers on SQLite,
/// estimated from the planner's statistics above a bound on PostgreSQL.
@Suite struct PatientCountTests {
    static func insertPatients(_ mrns: [String]) -> String {
        let rows = mrns.map { "('\($0)', 'Ada', 'Lovelace', '1815-12-10', 'female', '', '')" }
        return "INSERT INTO patient (mrn, given, family, birth_date, sex, phone, address) VALUES "
            + rows.joined(separator: ", ")
    }

    @Test func sqlite_theMigrationCountsThePatientsThere_andTheTriggersKeepTheCount() throws {
        let directory = TemporaryHome()
        defer { directory.remove() }
        let path = WardHome(path: directory.path).recordsPath
        let older = try SQLiteRecordStore.open(path, upTo: SQLiteSchema.foldedNamesMigration)
        try older.write { try $0.execute(Self.insertPatients(["A1", "A2", "A3"])) }
        older.close()

        #expect(try SQLiteRecordStore(home: directory.path).patientCount() == 3)
        let current = try SQLiteRecordStore.open(path)
        try current.write { db in
            try db.execute(Self.insertPatients(["B1"]))
            try db.execute("DELETE FROM patient WHERE mrn IN ('A1', 'A2')")
        }
        current.close()
        let store = try SQLiteRecordStore(home: directory.path)
        #expect(try store.patientCount() == 2)
        #expect(try store.patientsAtSignOn() == .exactly(2))
    }

    @Test func postgres_countsAFewPatients_andEstimatesManyOnceAnalyzed() throws {
        let server = try PostgresServer.shared()
        let database = try PostgresRecordStoreTests.migratedDatabase(server, "patientcount")
        let store = try PostgresRecordStore(settings: PostgresRecordStoreTests.settings(server, database: database))
        #expect(try store.patientsAtSignOn() == .exactly(0))
        _ = try server.psql(Self.insertPatients(["P1", "P2"]), database: database)
        #expect(try store.patientsAtSignOn() == .exactly(2))

        let many = PostgresRecordStore.exactCountLimit + 1_000
        _ = try server.psql(
            """
            INSERT INTO patient (mrn, given, family, birth_date, sex, phone, address)
            SELECT 'G' || n, 'Ada', 'Lovelace', '1815-12-10', 'female', '', '' FROM generate_series(3, \(many)) AS n;
            ANALYZE patient;
            """,
            database: database
        )
        #expect(try store.patientsAtSignOn() == PatientCount.rounded(many))
        #expect(try store.patientCount() == many)
    }

    @Test func postgres_theSessionsStoreAsksTheBannersQuestionsWhenItConnects_andAgainWhenThatWasLongAgo() throws {
        let server = try PostgresServer.shared()
        let database = try PostgresRecordStoreTests.migratedDatabase(server, "bannerahead")
        let backend = StoreBackend.postgresql(PostgresRecordStoreTests.settings(server, database: database))
        _ = try server.psql(Self.insertPatients(["P1"]), database: database)
        let opened = try backend.storeOpener()
        _ = try server.psql(
            Self.insertPatients(["P2"]) + "; INSERT INTO meta VALUES ('demo.seed', '7'), ('demo.patients', '2')",
            database: database
        )

        // The first sign-on's banner is what the server said when the store connected.
        let store = try #require(try opened())
        #expect(try store.patientsAtSignOn() == .exactly(1))
        #expect(try store.demoMarker() == nil)
        // Each answer is taken once: asked again, the questions go to the server.
        #expect(try store.patientsAtSignOn() == .exactly(2))
        #expect(try store.demoMarker() != nil)

        // A sign-on long after the store connected asks again.
        let late = try #require(try backend.storeOpener()() as? PostgresRecordStore)
        _ = try server.psql(Self.insertPatients(["P3"]), database: database)
        late.bannerFreshness = .zero
        #expect(try late.patientsAtSignOn() == .exactly(3))
    }

    @Test func anEstimate_isRoundedToTwoDigits() {
        #expect(PatientCount.rounded(7) == .about(7))
        #expect(PatientCount.rounded(11_000) == .about(11_000))
        #expect(PatientCount.rounded(999_987) == .about(1_000_000))
        #expect(PatientCount.rounded(1_234_567) == .about(1_200_000))
    }
}
