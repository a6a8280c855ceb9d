import FHIRTestSupport
import Foundation
import PostgresTestSupport
import Synchronization
import Testing

@testable import WardRecords

/// The PostgreSQL store against a real PostgreSQL 15 of the test's own, and beside the SQLite
/// store: the same data must search and read the same from both.
///
/// The tests share one server (`PostgresServer.shared()`), each on databases of its own; a
/// missing `postgresql-15` fails the test with the package's name.
@Suite struct PostgresRecordStoreTests {
    /// Settings for the server's socket, trusted, as the superuser.
    static func settings(
        _ server: PostgresServer,
        database: String,
        statementTimeout: Duration = .seconds(5)
    )
        -> PostgresSettings
    {
        PostgresSettings(
            endpoint: .socket(directory: server.socketDirectory, port: server.port),
            user: server.user,
            database: database,
            tls: .disable,
            connectTimeout: .seconds(2),
            statementTimeout: statementTimeout
        )
    }

    /// A fresh database on the server, its schema made as `ward db migrate` makes it; its name.
    static func migratedDatabase(_ server: PostgresServer, _ name: String = "records") throws -> String {
        let database = try server.createDatabase(name)
        _ = try PostgresRecordStore.migrateSchema(settings: settings(server, database: database))
        return database
    }

    /// A server, a fresh migrated database on it, and a store over it.
    static func store(_ server: PostgresServer) throws -> PostgresRecordStore {
        try PostgresRecordStore(settings: settings(server, database: migratedDatabase(server)))
    }

    /// Every chart of the SQLite store, copied into the PostgreSQL store in id order (so the
    /// ids, and with them the search's candidate order, are the same).
    static func copy(_ sqlite: SQLiteRecordStore, into postgres: PostgresRecordStore) throws -> [String] {
        let mrns: [String] = try sqlite.read { db in try db.fetchAll("SELECT mrn FROM patient ORDER BY id") }
        for mrn in mrns { try postgres.add(sqlite.chart(mrn: mrn)) }
        return mrns
    }

    /// Both stores holding the `ward demo` patients of seed 7, and the MRNs.
    static func demoStores(
        _ home: TemporaryHome,
        _ server: PostgresServer,
        patients: Int = 300
    ) throws
        -> (SQLiteRecordStore, PostgresRecordStore, [String])
    {
        try DemoGenerator(seed: 7, patients: patients).write(home: home.path)
        let sqlite = try SQLiteRecordStore(home: home.path)
        let postgres = try store(server)
        return (sqlite, postgres, try copy(sqlite, into: postgres))
    }

    @Test func server_startsFromAFreshInitdb_andStops() throws {
        let server = try PostgresServer()  // its own: this test stops it
        #expect(try server.psql("SHOW server_version").hasPrefix("15."))
        #expect(FileManager.default.fileExists(atPath: "\(server.socketDirectory)/.s.PGSQL.\(server.port)"))
        server.stop()
        #expect(!FileManager.default.fileExists(atPath: server.directory))
    }

    @Test func demoPatients_searchTheSame_onBothStores() throws {
        let home = TemporaryHome()
        defer { home.remove() }
        let server = try PostgresServer.shared()
        let (sqlite, postgres, mrns) = try Self.demoStores(home, server)
        #expect(try postgres.patientCount() == mrns.count)
        // Words of real names, their prefixes, two words, an MRN, nothing.
        var queries = ["s", "ma", "mar smi", "j", "jo", "xyz", mrns[5], mrns[5].lowercased(), "W00001", "a b"]
        for mrn in mrns.prefix(40) {
            let match = try #require(try sqlite.lookUp(mrn: mrn))
            queries.append(match.family)
            queries.append(String(match.family.prefix(3)))
            queries.append("\(match.given.prefix(2)) \(match.family.prefix(2))")
        }
        for query in queries {
            for limit in [1, 5, 50] {
                #expect(try postgres.find(query, limit: limit) == sqlite.find(query, limit: limit), "find \(query)")
            }
        }
        for prefix in ["W", "w00001", "W0000", "W00002", "X", mrns[12]] {
            #expect(
                try postgres.patients(mrnStartingWith: prefix, limit: 20)
                    == sqlite.patients(mrnStartingWith: prefix, limit: 20),
                "prefix \(prefix)"
            )
        }
    }

    @Test func namesWithDiacriticsAndPunctuation_searchTheSame_andRestrictionHolds() throws {
        let home = TemporaryHome()
        defer { home.remove() }
        let server = try PostgresServer.shared()
        let sqlite = try SQLiteRecordStore(home: home.path)
        try sqlite.importing(
            Bundles.bundle([
                Bundles.patient("a1", given: ["Leeann"], family: "Smith", mrn: "A1"),
                Bundles.patient("a2", given: ["John"], family: "Lee", mrn: "A2"),
                Bundles.patient("a5", given: ["José"], family: "Muñoz", mrn: "A5"),
                Bundles.patient("b12", given: ["Ann"], family: "O'Brien", mrn: "B12"),
                Bundles.patient("v1", given: ["Vera"], family: "Important", mrn: "V1", restricted: true),
            ])
        )
        let postgres = try Self.store(server)
        _ = try Self.copy(sqlite, into: postgres)
        for query in ["lee", "JOSE munoz", "o'brien", "smith OR jones", "\"smith", "b12", "vera", "imp"] {
            #expect(try postgres.find(query) == sqlite.find(query), "find \(query)")
        }
        // Break the glass: the restriction reaches `find` and `lookUp`, whatever the MRN's case.
        #expect(try postgres.lookUp(mrn: "v1")?.restricted == true)
        #expect(try postgres.lookUp(mrn: "A1")?.restricted == false)
        #expect(try postgres.find("vera").matches.first?.restricted == true)
        #expect(try postgres.chart(mrn: "V1", contents: .demographics).patient.restricted)
        #expect(try postgres.lookUp(mrn: "nobody") == nil)
    }

    /// A prefix shared by more patients than the search keeps as candidates (201), over several
    /// name words each held by more than that, some patients holding two of them: the first
    /// candidates, and so the rows and the capped count, are the same on both stores.
    @Test func aPrefixOfManyPatients_findsTheSameCandidates_onBothStores() throws {
        let home = TemporaryHome()
        defer { home.remove() }
        let server = try PostgresServer.shared()
        let sqlite = try SQLiteRecordStore(home: home.path)
        let families = ["Marsh", "Martin", "Mars", "Smith", "Marquez"]
        let givens = ["Mark", "Maria", "John", "Ann", "Marta Jane"]
        try sqlite.importing(
            Bundles.bundle(
                (0..<1200).map { i in
                    Bundles.patient(
                        "p\(i)",
                        given: givens[(i / 5) % givens.count].split(separator: " ").map(String.init),
                        family: families[i % families.count],
                        mrn: "M\(i)"
                    )
                }
            )
        )
        let postgres = try Self.store(server)
        _ = try Self.copy(sqlite, into: postgres)
        for query in ["mar", "ma", "m", "mart", "marsh", "mar smi", "mar mar", "j", "zz"] {
            for limit in [1, 20, 50] {
                #expect(try postgres.find(query, limit: limit) == sqlite.find(query, limit: limit), "find \(query)")
            }
        }
        #expect(try postgres.find("mar", limit: 20).totalIsCapped)
    }

    /// Two or more words go through the GIN index over `patient.name_words`, not the token
    /// table: with far more patients per word than the candidates kept, the same candidates as
    /// SQLite's FTS5, whether the words were written by the chart writer or filled by the
    /// migration (`PostgresSchema.fillNameWords`) from the token table.
    @Test func twoPrefixesOfManyPatients_findTheSameCandidates_onBothStores() throws {
        let home = TemporaryHome()
        defer { home.remove() }
        let server = try PostgresServer.shared()
        let sqlite = try SQLiteRecordStore(home: home.path)
        let families = ["Marsh", "Martin", "Smith", "Smithson", "Marquez", "Johnson"]
        let givens = ["Mark", "Maria", "John", "Ann Smith", "Marta Jane", "Jo"]
        try sqlite.importing(
            Bundles.bundle(
                (0..<1500).map { i in
                    Bundles.patient(
                        "p\(i)",
                        given: givens[(i / 7) % givens.count].split(separator: " ").map(String.init),
                        family: families[i % families.count],
                        mrn: "M\(i)"
                    )
                }
            )
        )
        let database = try PostgresRecordStoreTests.migratedDatabase(server)
        let postgres = try PostgresRecordStore(settings: Self.settings(server, database: database))
        _ = try Self.copy(sqlite, into: postgres)
        let queries = [
            "mar smi", "smi mar", "m s", "ma jo", "j s", "smith smi", "mar mar", "mar smith ann", "\"smith\" mar",
            "\"smith\" \"ann\"", "mart jo", "mar zz", "zz mar", "jo jo jo",
        ]
        func expectSame() throws {
            for query in queries {
                for limit in [1, 20, 50] {
                    #expect(try postgres.find(query, limit: limit) == sqlite.find(query, limit: limit), "find \(query)")
                }
            }
        }
        try expectSame()
        #expect(try postgres.find("mar smi", limit: 20).totalIsCapped)
        // The same words in both places, in any order (the writer keeps the names' order).
        let differing = """
            SELECT count(*) FROM patient LEFT JOIN
                (SELECT patient_id, array_agg(token) AS words FROM patient_name_token GROUP BY patient_id) AS t
                ON t.patient_id = patient.id
            WHERE NOT (name_words @> coalesce(t.words, '{}') AND name_words <@ coalesce(t.words, '{}'))
            """
        #expect(try server.psql(differing, database: database) == "0\n")
        try server.psql("UPDATE patient SET name_words = '{}'; \(PostgresSchema.fillNameWords)", database: database)
        #expect(try server.psql(differing, database: database) == "0\n")
        try expectSame()
    }

    @Test func charts_readTheSame_onBothStores() throws {
        let home = TemporaryHome()
        defer { home.remove() }
        let server = try PostgresServer.shared()
        let (sqlite, postgres, mrns) = try Self.demoStores(home, server, patients: 40)
        var observations = 0
        for mrn in mrns {
            let a = try sqlite.chart(mrn: mrn)
            let b = try postgres.chart(mrn: mrn.lowercased())
            #expect(b.patient == a.patient)
            #expect(b.allergies == a.allergies)
            #expect(b.problems == a.problems)
            #expect(b.medications == a.medications)
            #expect(b.observations == a.observations)
            #expect(b.encounters == a.encounters)
            #expect(b.notes == a.notes)
            #expect(b.immunizations == a.immunizations)
            #expect(b.procedures == a.procedures)
            #expect(b.carePlans == a.carePlans)
            #expect(b.reports == a.reports)
            observations += b.observations.count
            let clerk = try postgres.chart(mrn: mrn, contents: .demographics)
            #expect(clerk.patient == a.patient && clerk.observations.isEmpty && clerk.notes.isEmpty)
        }
        #expect(observations > 0)
        #expect(throws: StoreError.noSuchPatient) { try postgres.chart(mrn: "W9999999") }
    }

    @Test func twoWardsWritingNotesToOneChart_loseNothing_andSeeEachOthersAtOnce() throws {
        let server = try PostgresServer.shared()
        let database = try Self.migratedDatabase(server, "shared")
        let first = try PostgresRecordStore(settings: Self.settings(server, database: database))
        let second = try PostgresRecordStore(settings: Self.settings(server, database: database))
        try first.add(
            LoadedChart(
                patient: Patient(mrn: "N1", given: "Nora", family: "Notes", birthDate: "1980-01-01", sex: .unknown)
            )
        )
        let written = try second.addNote(
            mrn: "n1",
            author: "bob",
            text: "seen on host two",
            at: Date(timeIntervalSince1970: 100.7)
        )
        #expect(written.time == Date(timeIntervalSince1970: 100))
        #expect(try first.chart(mrn: "N1").notes == [written])

        // Two more Wards, each with its own connection on its own thread, write at once.
        let perWriter = 40
        let failures = Mutex<[String]>([])
        let settings = Self.settings(server, database: database)
        let finished = DispatchSemaphore(value: 0)
        let threads = (0..<2).map { index in
            Thread {
                defer { finished.signal() }
                do {
                    let store = try PostgresRecordStore(settings: settings)
                    for n in 0..<perWriter {
                        _ = try store.addNote(
                            mrn: "N1",
                            author: "writer\(index)",
                            text: "note \(n)",
                            at: Date(timeIntervalSince1970: 200)
                        )
                    }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }
        for thread in threads { thread.start() }
        for _ in threads { finished.wait() }
        #expect(failures.withLock { $0 } == [])
        let notes = try first.chart(mrn: "N1").notes
        #expect(notes.count == 1 + 2 * perWriter)
        for index in 0..<2 {
            #expect(
                Set(notes.filter { $0.author == "writer\(index)" }.map(\.text))
                    == Set((0..<perWriter).map { "note \($0)" })
            )
        }
        #expect(throws: StoreError.noSuchPatient) { try first.addNote(mrn: "N2", author: "a", text: "t", at: Date()) }
    }

    @Test func lock_closesWithoutTheServer_andSignOnReconnects() throws {
        let server = try PostgresServer()  // its own: this test stops it
        let store = try Self.store(server)
        try store.add(
            LoadedChart(
                patient: Patient(mrn: "L1", given: "Lou", family: "Locke", birthDate: "1970-01-01", sex: .unknown)
            )
        )
        store.wipe()
        #expect(throws: StoreError.closed) { try store.find("locke") }
        #expect(throws: StoreError.closed) { try store.chart(mrn: "L1") }
        // The server goes away while locked: the lock did not need it; sign-on says where it was.
        server.stop()
        #expect(throws: StoreError.self) { try store.reopen() }
    }

    @Test func droppedConnection_failsAtMostOneCommand_quickly_thenReconnects() throws {
        let server = try PostgresServer.shared()
        let database = try Self.migratedDatabase(server)
        let store = try PostgresRecordStore(settings: Self.settings(server, database: database))
        try store.add(
            LoadedChart(
                patient: Patient(mrn: "D1", given: "Dee", family: "Drop", birthDate: "1970-01-01", sex: .unknown)
            )
        )
        try server.psql(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                + "WHERE application_name = 'ward' AND datname = '\(database)'"
        )
        // Whether the client has seen the close yet is a race: the next command either fails,
        // saying so in Ward's words, or runs on a new connection; it never waits out a timeout.
        let start = ContinuousClock.now
        do {
            #expect(try store.find("drop").matches.map(\.mrn) == ["D1"])
        } catch let error as StoreError {
            #expect("\(error)".contains("records server"), "\(error)")
        }
        #expect(ContinuousClock.now - start < .seconds(2))
        #expect(try store.find("drop").matches.map(\.mrn) == ["D1"])
    }

    /// `open` runs prepared statements: the server parses and plans each once per connection.
    @Test func open_preparesItsStatementsOnce_perConnection() throws {
        let server = try PostgresServer.shared()
        let store = try Self.store(server)
        let patient = Patient(mrn: "P1", given: "Pia", family: "Prep", birthDate: "1970-01-01", sex: .unknown)
        try store.add(LoadedChart(patient: patient))
        for _ in 0..<3 {
            #expect(try store.lookUp(mrn: "p1")?.mrn == "P1")
            #expect(try store.chart(mrn: "P1").patient == patient)
        }
        let names = try store.rows("SELECT name FROM pg_prepared_statements ORDER BY name").map {
            try $0.decode(String.self)
        }
        // lookUp's statement and the chart's one.
        #expect(names == ["ward.chart", "ward.match"], "\(names)")
    }

    /// A statement that fails to prepare fails that `open` in Ward's words, leaves no
    /// transaction open on the server, and does not stay failed: PostgresNIO remembers a failed
    /// preparation for the connection's life, so the store opens a new connection.
    @Test func aStatementThatFailsToPrepare_failsOneOpen_thenPreparesAgain() throws {
        let server = try PostgresServer.shared()
        let database = try Self.migratedDatabase(server)
        let store = try PostgresRecordStore(settings: Self.settings(server, database: database))
        let patient = Patient(mrn: "F1", given: "Fay", family: "Fail", birthDate: "1970-01-01", sex: .unknown)
        try store.add(LoadedChart(patient: patient))
        _ = try server.psql("ALTER TABLE note RENAME TO note_away", database: database)
        do {
            _ = try store.chart(mrn: "F1")
            Issue.record("the chart opened without its notes table")
        } catch let error as StoreError {
            #expect("\(error)".contains("SQLSTATE 42P01"), "\(error)")
            #expect(!"\(error)".contains("note_away"))
        }
        // The connection closes without Ward waiting for it: the server sees it go within moments.
        var open = ""
        let start = ContinuousClock.now
        repeat {
            open = try server.psql(
                "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'ward' "
                    + "AND datname = current_database() AND state LIKE 'idle in transaction%'",
                database: database
            ).trimmingCharacters(in: .whitespacesAndNewlines)
        } while open != "0" && ContinuousClock.now - start < .seconds(2)
        #expect(open == "0")
        _ = try server.psql("ALTER TABLE note_away RENAME TO note", database: database)
        #expect(try store.chart(mrn: "F1").patient == patient)
    }

    @Test func aSlowStatement_isEndedAtTheStatementTimeout() throws {
        let server = try PostgresServer.shared()
        let database = try Self.migratedDatabase(server, "slow")
        let store = try PostgresRecordStore(
            settings: Self.settings(server, database: database, statementTimeout: .milliseconds(500))
        )
        let start = ContinuousClock.now
        #expect(throws: StoreError.self) { try store.rows("SELECT pg_sleep(3)") }
        #expect(ContinuousClock.now - start < .seconds(2))
        #expect(try store.patientCount() == 0)
    }

    @Test func anUnreachableServer_isNamedByHostAndPort_withExit69() throws {
        let port = PostgresServer.freePort()
        let start = ContinuousClock.now
        let error = try #require(throws: StoreError.self) {
            try PostgresRecordStore(
                settings: PostgresSettings(
                    endpoint: .tcp(host: "127.0.0.1", port: port),
                    user: "ward",
                    database: "records",
                    tls: .disable,
                    connectTimeout: .seconds(1)
                )
            )
        }
        #expect(ContinuousClock.now - start < .seconds(3))
        #expect(error.exitStatus.rawValue == 69)
        #expect("\(error)" == "cannot reach the records server 127.0.0.1:\(port): connection refused")
    }

    @Test func noServerAtASocket_isSaid_whetherTheDirectoryIsThereOrNot() throws {
        let server = try PostgresServer.shared()
        for directory in [server.socketDirectory + "/nowhere", server.socketDirectory] {
            let port = PostgresServer.freePort()
            let error = try #require(throws: StoreError.self) {
                try PostgresRecordStore(
                    settings: PostgresSettings(
                        endpoint: .socket(directory: directory, port: port),
                        user: "ward",
                        database: "records",
                        connectTimeout: .seconds(1)
                    )
                )
            }
            #expect(
                "\(error)" == "cannot reach the records server \(directory)/.s.PGSQL.\(port): no server socket there"
            )
        }
    }

    @Test func passwordOverLoopback_isChecked() throws {
        let server = try PostgresServer.shared()
        let database = try Self.migratedDatabase(server, "tcp")
        var settings = PostgresSettings(
            endpoint: .tcp(host: "127.0.0.1", port: server.port),
            user: server.user,
            database: database,
            password: server.password,
            tls: .disable
        )
        #expect(try PostgresRecordStore(settings: settings).patientCount() == 0)
        settings.password = "wrong"
        let error = try #require(throws: StoreError.self) { try PostgresRecordStore(settings: settings) }
        #expect(
            "\(error)"
                == "cannot reach the records server 127.0.0.1:\(server.port): the server refused the user name or password"
        )
        // The test server offers no TLS: a site that requires it is refused, not downgraded.
        settings.password = server.password
        settings.tls = .require
        let refused = try #require(throws: StoreError.self) { try PostgresRecordStore(settings: settings) }
        #expect("\(refused)".contains("does not offer TLS"))
    }
}
