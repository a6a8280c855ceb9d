import Foundation
import Glibc
import PostgresTestSupport
import Synchronization
import Testing
import WardCore

@testable import WardRecords

/// `ward db migrate`'s step on both backends (`migrateSchema`), and what a PostgreSQL session
/// does with a schema it did not make: it never migrates, and stops with the command that fixes
/// it.
@Suite struct SchemaMigrationTests {
    static let allMigrations = PostgresSchema.migrations.map(\.name)

    // MARK: PostgreSQL

    @Test func postgres_migrateOnAnEmptyDatabase_appliesEveryMigration_thenIsUpToDate() throws {
        let server = try PostgresServer.shared()
        let database = try server.createDatabase("empty")
        let settings = PostgresRecordStoreTests.settings(server, database: database)
        let first = try PostgresRecordStore.migrateSchema(settings: settings)
        #expect(first == SchemaMigration(version: Self.allMigrations.count, applied: Self.allMigrations))
        #expect(
            first.summary == "schema at version \(Self.allMigrations.count), applied: "
                + Self.allMigrations.joined(separator: ", ")
        )
        let second = try PostgresRecordStore.migrateSchema(settings: settings)
        #expect(second == SchemaMigration(version: Self.allMigrations.count, applied: []))
        #expect(second.summary == "schema at version \(Self.allMigrations.count), already up to date")
        let applied = try server.psql("SELECT identifier FROM ward_migrations ORDER BY identifier", database: database)
        #expect(applied.split(separator: "\n").map(String.init).sorted() == Self.allMigrations.sorted())
        #expect(try PostgresRecordStore(settings: settings).patientCount() == 0)
    }

    @Test func postgres_twoMigratingAtOnce_takeTurns_andNeitherCountsTheOtherAsASession() throws {
        let server = try PostgresServer.shared()
        let settings = PostgresRecordStoreTests.settings(server, database: try server.createDatabase("twice"))
        let results = Mutex<[Result<SchemaMigration, any Error>]>([])
        let finished = DispatchSemaphore(value: 0)
        let threads = (0..<2).map { _ in
            Thread {
                defer { finished.signal() }
                let result = Result { try PostgresRecordStore.migrateSchema(settings: settings) }
                results.withLock { $0.append(result) }
            }
        }
        for thread in threads { thread.start() }
        for _ in threads { finished.wait() }
        let applied = try results.withLock { try $0.map { try $0.get().applied } }
        #expect(applied.sorted { $0.count < $1.count } == [[], Self.allMigrations])
    }

    @Test func postgres_aSession_neverMigrates_andNamesTheCommandThatDoes() throws {
        let server = try PostgresServer.shared()
        let database = try server.createDatabase("bare")
        let settings = PostgresRecordStoreTests.settings(server, database: database)
        let endpoint = "\(server.socketDirectory)/.s.PGSQL.\(server.port)"
        let none = try #require(throws: SchemaError.self) { try PostgresRecordStore(settings: settings) }
        #expect(none == .notCreated(server: endpoint, database: database))
        #expect(none.exitStatus.rawValue == 78)
        #expect("\(none)".contains("has no Ward schema yet; an administrator creates it with 'ward db migrate'"))
        // It left nothing behind: not even the migrations table.
        #expect(try server.psql("SELECT to_regclass('ward_migrations') IS NULL", database: database) == "t\n")

        // An older schema: the first migration only, as an early Ward left it.
        let link = PostgresLink(settings: settings)
        try link.connect()
        try PostgresSchema.migrate(link, upTo: SQLiteSchema.tablesMigration)
        link.close()
        let older = try #require(throws: SchemaError.self) { try PostgresRecordStore(settings: settings) }
        #expect(
            older == .outdated(server: endpoint, database: database, pending: Array(Self.allMigrations.dropFirst()))
        )
        #expect("\(older)".contains("has an older schema than this Ward (missing 2-indexes-and-name-search, "))
        #expect(try server.psql("SELECT count(*) FROM ward_migrations", database: database) == "1\n")

        // The refused stores closed their connections; the server lets a backend go a moment
        // later, and until then migrate would count it as a session.
        let sessions =
            "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'ward' AND datname = current_database()"
        _ = try held(within: .seconds(5)) { try server.psql(sessions, database: database) == "0\n" }
        let upgraded = try PostgresRecordStore.migrateSchema(settings: settings)
        #expect(upgraded.applied == Array(Self.allMigrations.dropFirst()))
        #expect(try PostgresRecordStore(settings: settings).patientCount() == 0)
    }

    @Test func postgres_aNewerSchema_isRefused_bySessionsAndByMigrate() throws {
        let server = try PostgresServer.shared()
        let database = try PostgresRecordStoreTests.migratedDatabase(server, "newer")
        let settings = PostgresRecordStoreTests.settings(server, database: database)
        try server.psql("INSERT INTO ward_migrations (identifier) VALUES ('99-from-the-future')", database: database)
        let newer = StoreError.migrationFailed(
            path: "\(server.socketDirectory)/.s.PGSQL.\(server.port)",
            reason: "it was written by a newer Ward"
        )
        #expect(throws: newer) { try PostgresRecordStore(settings: settings) }
        #expect(throws: newer) { try PostgresRecordStore.migrateSchema(settings: settings) }
    }

    @Test func postgres_migrate_isRefusedWhileWardsAreConnected_unlessForced() throws {
        let server = try PostgresServer.shared()
        let database = try server.createDatabase("busy")
        let settings = PostgresRecordStoreTests.settings(server, database: database)
        let link = PostgresLink(settings: settings)
        try link.connect()
        try PostgresSchema.migrate(link, upTo: SQLiteSchema.tablesMigration)
        // Two Ward connections, as two hosts' sessions: one on the socket, one over loopback TCP.
        var tcpSettings = settings
        tcpSettings.endpoint = .tcp(host: "127.0.0.1", port: server.port)
        tcpSettings.password = server.password
        let tcp = PostgresLink(settings: tcpSettings)
        try tcp.connect()
        // Another program's connection is not a Ward session.
        try server.psql("SELECT 1", database: database)

        let pending = Array(Self.allMigrations.dropFirst())
        let refused = try #require(throws: SchemaError.self) {
            try PostgresRecordStore.migrateSchema(settings: settings)
        }
        #expect(
            refused
                == .sessionsConnected(
                    target: "\(database) on \(server.socketDirectory)/.s.PGSQL.\(server.port)",
                    pending: pending,
                    sessions: 2,
                    clients: ["127.0.0.1", "local socket"]
                )
        )
        #expect(refused.exitStatus.rawValue == 75)
        #expect("\(refused)".hasPrefix("2 Ward sessions are connected to \(database) on "))
        #expect(try server.psql("SELECT count(*) FROM ward_migrations", database: database) == "1\n", "nothing applied")

        // Sessions that have locked (or ended) hold no connection: then it migrates.
        tcp.close()
        let forced = try PostgresRecordStore.migrateSchema(settings: settings, force: true)
        #expect(forced.applied == pending)
        // Up to date, it has nothing to lock and is never refused.
        #expect(try PostgresRecordStore.migrateSchema(settings: settings).applied == [])
        link.close()
    }

    @Test func postgres_sessionsNeedOnlySelectInsertUpdate_andMigrateNeedsCreate() throws {
        let server = try PostgresServer.shared()
        let database = try PostgresRecordStoreTests.migratedDatabase(server)
        let role = server.uniqueName("ward_session")  // roles are the whole server's
        // The grants man ward(1) gives, to a user of the sessions' own (PostgreSQL 15 gives
        // PUBLIC no CREATE on the public schema).
        try server.psql(
            """
            CREATE ROLE \(role) LOGIN;
            GRANT USAGE ON SCHEMA public TO \(role);
            GRANT SELECT, INSERT, UPDATE ON ALL TABLES IN SCHEMA public TO \(role);
            GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO \(role);
            INSERT INTO patient (id, mrn, given, family, birth_date, sex, phone, address)
                VALUES (1, 'G1', 'Grace', 'Grant', '1960-01-01', 'female', '', '');
            INSERT INTO patient_name_token (token, patient_id) VALUES ('grace', 1), ('grant', 1);
            """,
            database: database
        )
        var settings = PostgresRecordStoreTests.settings(server, database: database)
        settings.user = role
        let store = try PostgresRecordStore(settings: settings)
        #expect(try store.find("grant").matches.map(\.mrn) == ["G1"])
        _ = try store.addNote(mrn: "G1", author: "alice", text: "granted", at: Date(timeIntervalSince1970: 0))
        #expect(try store.chart(mrn: "G1").notes.map(\.text) == ["granted"])

        let refused = try #require(throws: StoreError.self) {
            try PostgresRecordStore.migrateSchema(settings: settings)
        }
        #expect(
            "\(refused)"
                == "records database error: the database user \(role) lacks a privilege this needs "
                + "(SQLSTATE 42501); see DATABASE in ward(1)"
        )
    }

    // MARK: SQLite

    @Test func sqlite_migrateOnAHome_makesTheFile_0600_thenIsUpToDate() throws {
        let directory = TemporaryHome()
        defer { directory.remove() }
        let home = WardHome(path: directory.path)
        let first = try SQLiteRecordStore.migrateSchema(home: home)
        #expect(first == SchemaMigration(version: Self.allMigrations.count, applied: Self.allMigrations))
        var info = stat()
        #expect(stat(home.recordsPath, &info) == 0 && info.st_mode & 0o777 == 0o600)
        #expect(
            try SQLiteRecordStore.migrateSchema(home: home)
                == SchemaMigration(version: Self.allMigrations.count, applied: [])
        )
        #expect(try SQLiteRecordStore(home: home.path).patientCount() == 0)
    }

    @Test func sqlite_migrate_isRefusedWhileTheHomeHasLiveSessions_unlessForced() throws {
        let directory = TemporaryHome()
        defer { directory.remove() }
        let home = WardHome(path: directory.path)
        try SQLiteRecordStore.open(home.recordsPath, upTo: SQLiteSchema.tablesMigration).close()
        // A live session of the home: this process, as the registry lists it.
        let registry = SessionRegistry(home: home)
        try registry.write(
            SessionEntry(
                id: "5e55",
                pid: getpid(),
                processStart: try #require(ProcessStartTime.of(getpid())),
                uid: getuid(),
                user: "alice",
                role: "clinician",
                tty: "/dev/pts/7",
                peer: "192.0.2.9",
                started: "2026-11-25T20:00:00Z",
                state: .signedOn
            )
        )
        let pending = Array(Self.allMigrations.dropFirst())
        #expect(
            throws: SchemaError.sessionsConnected(
                target: home.recordsPath,
                pending: pending,
                sessions: 1,
                clients: ["192.0.2.9"]
            )
        ) {
            try SQLiteRecordStore.migrateSchema(home: home)
        }
        #expect(try SQLiteRecordStore.migrateSchema(home: home, force: true).applied == pending)
        registry.remove(id: "5e55")
    }
}
