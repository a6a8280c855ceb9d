import Foundation
import PostgresTestSupport
import Testing

@testable import WardRecords

/// `ward demo` into PostgreSQL: the generator's staging file copied into the shared
/// database must search and read the same as the SQLite demo of the same seed, leave no staging
/// file behind, and leave the database as it was when it fails.
@Suite struct PostgresDemoLoadTests {
    static let seed: UInt64 = 7

    /// The SQLite demo in `home`, and the same demo loaded into a fresh database of `server`;
    /// the database's name.
    static func bothDemos(
        _ home: TemporaryHome,
        _ staging: TemporaryHome,
        _ server: PostgresServer,
        patients: Int
    ) throws -> (SQLiteRecordStore, PostgresRecordStore, database: String) {
        try DemoGenerator(seed: seed, patients: patients).write(home: home.path)
        let database = try PostgresRecordStoreTests.migratedDatabase(server)
        let postgres = try PostgresRecordStore(
            settings: PostgresRecordStoreTests.settings(server, database: database)
        )
        var made: [Int] = []
        var copied: [(Int, Int)] = []
        try DemoGenerator(seed: seed, patients: patients).write(
            into: postgres,
            staging: staging.path,
            making: { done, _ in made.append(done) },
            copying: { copied.append(($0, $1)) }
        )
        #expect(made.last == patients)
        #expect(copied.last.map { $0.0 == $0.1 && $0.1 > patients } == true)
        return (try SQLiteRecordStore(home: home.path), postgres, database)
    }

    @Test func demoLoadedIntoPostgres_findsAndOpensTheSame_asTheSQLiteDemo() throws {
        let home = TemporaryHome()
        let staging = TemporaryHome()
        defer {
            home.remove()
            staging.remove()
        }
        let server = try PostgresServer.shared()
        let (sqlite, postgres, database) = try Self.bothDemos(home, staging, server, patients: 300)
        #expect(try FileManager.default.contentsOfDirectory(atPath: staging.path) == [])
        #expect(try postgres.patientCount() == 300)
        // Analyzed by the load: the sign-on banner's estimate has statistics to read at once.
        #expect(
            try server.psql("SELECT reltuples::bigint FROM pg_class WHERE relname = 'patient'", database: database)
                == "300\n"
        )
        #expect(try postgres.demoMarker() == DemoMarker(seed: Self.seed, patients: 300))
        var queries = ["s", "ma", "mar smi", "j", "jo", "xyz", "W0000005", "w00001", "a b"]
        for index in stride(from: 0, to: 300, by: 7) {
            let mrn = DemoGenerator.mrn(index: index)
            let match = try #require(try sqlite.lookUp(mrn: mrn))
            queries += [match.family, String(match.family.prefix(3)), "\(match.given.prefix(2)) \(match.family)"]
            let a = try sqlite.chart(mrn: mrn)
            let b = try postgres.chart(mrn: mrn)
            #expect(b.patient == a.patient)
            #expect(b.allergies == a.allergies)
            #expect(b.problems == a.problems)
            #expect(b.medications == a.medications)
            #expect(b.observations == a.observations)
            #expect(b.encounters == a.encounters)
            #expect(b.notes == a.notes)
        }
        for query in queries {
            for limit in [1, 5, 50] {
                #expect(try postgres.find(query, limit: limit) == sqlite.find(query, limit: limit), "find \(query)")
            }
        }
        #expect(
            try postgres.patients(mrnStartingWith: "W00001", limit: 20)
                == sqlite.patients(mrnStartingWith: "W00001", limit: 20)
        )
    }

    @Test func rowsWrittenAfterTheLoad_getFreshIds() throws {
        let home = TemporaryHome()
        let staging = TemporaryHome()
        defer {
            home.remove()
            staging.remove()
        }
        let server = try PostgresServer.shared()
        let (sqlite, postgres, database) = try Self.bothDemos(home, staging, server, patients: 30)
        let mrn = DemoGenerator.mrn(index: 3)
        let before = try sqlite.chart(mrn: mrn).notes
        let note = try postgres.addNote(mrn: mrn, author: "alice", text: "after the load", at: Date())
        #expect(try postgres.chart(mrn: mrn).notes.count == before.count + 1)
        #expect(try postgres.chart(mrn: mrn).notes.contains(note))
        try postgres.add(
            LoadedChart(
                patient: Patient(mrn: "NEW1", given: "Nadia", family: "Later", birthDate: "1990-01-01", sex: .female)
            )
        )
        #expect(try postgres.patientCount() == 31)
        #expect(try postgres.find("nadia later").matches.map(\.mrn) == ["NEW1"])
        // The foreign keys the load set aside are back, as a fresh schema has them.
        let fresh = try PostgresRecordStoreTests.migratedDatabase(server, "fresh")
        let keys =
            "SELECT string_agg(conname || ' ' || pg_get_constraintdef(oid), ', ' ORDER BY conname) "
            + "FROM pg_constraint WHERE contype = 'f'"
        #expect(try server.psql(keys, database: database) == server.psql(keys, database: fresh))
        #expect(try server.psql(keys, database: fresh).contains("FOREIGN KEY (patient_id) REFERENCES patient(id)"))
    }

    @Test func aDatabaseWithOtherRecords_isRefused_andLeftAsItWas() throws {
        let staging = TemporaryHome()
        defer { staging.remove() }
        let server = try PostgresServer.shared()
        let settings = PostgresRecordStoreTests.settings(
            server,
            database: try PostgresRecordStoreTests.migratedDatabase(server)
        )
        let postgres = try PostgresRecordStore(settings: settings)
        try postgres.add(
            LoadedChart(
                patient: Patient(mrn: "R1", given: "Rita", family: "Real", birthDate: "1970-01-01", sex: .female)
            )
        )
        #expect(throws: StoreError.databaseHasRecords(server: settings.endpoint.description)) {
            try DemoGenerator(seed: 1, patients: 20).write(into: postgres, staging: staging.path)
        }
        #expect(try postgres.patientCount() == 1)
        #expect(try postgres.demoMarker() == nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: staging.path) == [])
    }

    @Test func aLoadThatFailsPartWay_leavesTheDatabaseEmpty_andNoStagingFile() throws {
        let staging = TemporaryHome()
        defer { staging.remove() }
        let server = try PostgresServer.shared()
        let database = try PostgresRecordStoreTests.migratedDatabase(server)
        let postgres = try PostgresRecordStore(settings: PostgresRecordStoreTests.settings(server, database: database))
        // Observations are copied after patients, their names' words and allergies: a trigger refuses them.
        try server.psql(
            """
            CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'no'; END $$;
            CREATE TRIGGER refuse_observations BEFORE INSERT ON observation FOR EACH ROW EXECUTE FUNCTION refuse();
            """,
            database: database
        )
        #expect(throws: StoreError.database(reason: "PostgreSQL error SQLSTATE P0001")) {
            try DemoGenerator(seed: 1, patients: 50).write(into: postgres, staging: staging.path)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: staging.path) == [])
        for table in ["patient", "patient_name_token", "observation", "observation_code", "meta"] {
            let count = try server.psql("SELECT count(*) FROM \(table)", database: database)
            #expect(count.trimmingCharacters(in: .whitespacesAndNewlines) == "0", "\(table)")
        }
        #expect(try postgres.demoMarker() == nil)
    }

    @Test func aLoaderThatDoesNotOwnTheTables_loadsWithTheForeignKeysInPlace() throws {
        let staging = TemporaryHome()
        defer { staging.remove() }
        let server = try PostgresServer.shared()
        // The owner makes the schema; the loader has table and sequence privileges only.
        let database = try PostgresRecordStoreTests.migratedDatabase(server)
        let loader = server.uniqueName("loader")  // roles are the whole server's
        try server.psql(
            """
            CREATE ROLE \(loader) LOGIN;
            GRANT CREATE, USAGE ON SCHEMA public TO \(loader);
            GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO \(loader);
            GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA public TO \(loader);
            """,
            database: database
        )
        let owner = PostgresRecordStoreTests.settings(server, database: database)
        let settings = PostgresSettings(
            endpoint: owner.endpoint,
            user: loader,
            database: database,
            tls: .disable,
            connectTimeout: owner.connectTimeout,
            statementTimeout: owner.statementTimeout
        )
        let postgres = try PostgresRecordStore(settings: settings)
        let keys = "SELECT count(*) FROM pg_constraint WHERE contype = 'f'"
        let before = try server.psql(keys, database: database)
        try DemoGenerator(seed: 3, patients: 40).write(into: postgres, staging: staging.path)
        #expect(try postgres.patientCount() == 40)
        #expect(try postgres.demoMarker() == DemoMarker(seed: 3, patients: 40))
        #expect(try server.psql(keys, database: database) == before)
        _ = try postgres.addNote(mrn: "W0000001", author: "alice", text: "after", at: Date())
        #expect(try FileManager.default.contentsOfDirectory(atPath: staging.path) == [])
    }
}
