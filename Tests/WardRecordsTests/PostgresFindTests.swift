import FHIRTestSupport
import Foundation
import PostgresTestSupport
import Testing

@testable import WardRecords

/// `find` on PostgreSQL runs one statement a search, prepared for one to four words
/// (`PostgresFindStatements`): the same results as SQLite's for any number of words, each
/// statement prepared once per connection, and a failed one drops the connection.
@Suite struct PostgresFindTests {
    /// Both stores holding the same `count` patients, in id order, their names taken by turns
    /// from `families` and (every `givenEvery` patients) `givens`; by default 1,500 patients with
    /// up to three given names and two family names each.
    static func stores(
        _ home: TemporaryHome,
        _ server: PostgresServer,
        families: [String] = ["Marsh-Smith", "Martin", "Smith Johnson", "Smithson", "Marquez de la Cruz", "Johnson"],
        givens: [String] = ["Mark Anthony", "Maria Jane Ann", "John Paul", "Ann Marie Joy", "Marta Jane", "Jo"],
        givenEvery: Int = 7,
        count: Int = 1500
    ) throws -> (SQLiteRecordStore, PostgresRecordStore) {
        let sqlite = try SQLiteRecordStore(home: home.path)
        try sqlite.importing(
            Bundles.bundle(
                (0..<count).map { i in
                    Bundles.patient(
                        "p\(i)",
                        given: givens[(i / givenEvery) % givens.count].split(separator: " ").map(String.init),
                        family: families[i % families.count],
                        mrn: "M\(i)"
                    )
                }
            )
        )
        let postgres = try PostgresRecordStoreTests.store(server)
        _ = try PostgresRecordStoreTests.copy(sqlite, into: postgres)
        return (sqlite, postgres)
    }

    @Test func twoToSixWords_prefixAndWhole_findTheSame_onBothStores() throws {
        let home = TemporaryHome()
        defer { home.remove() }
        let server = try PostgresServer.shared()
        let (sqlite, postgres) = try Self.stores(home, server)
        let queries = [
            // Two words, three, four (prepared), five and six (unnamed); whole, prefix, mixed.
            "ann smith", "an sm", "m s",
            "maria jane ann", "mar jan an", "m j a", "jane ann zz",
            "ann marie joy johnson", "an mar jo jo", "a m j s", "mark anthony marquez de",
            "ann marie joy smith johnson", "a m j s j", "mar de la cruz mark", "m a m d l",
            "mark anthony marquez de la cruz", "ma an ma de la cr", "ann marie joy smith johnson zz",
        ]
        for query in queries {
            for limit in [1, 20, 50] {
                let (p, q) = (try postgres.find(query, limit: limit), try sqlite.find(query, limit: limit))
                #expect(
                    p == q,
                    "find \(query): \(p.total) \(p.totalIsCapped) \(p.matches.map(\.mrn)) vs \(q.total) \(q.totalIsCapped) \(q.matches.map(\.mrn))"
                )
            }
        }
        // Not vacuous: whole words and prefixes of each size match, some more than the count's cap.
        for query in ["maria jane ann", "ann marie joy johnson", "ann marie joy smith johnson", "ma an ma de la cr"] {
            #expect(try !postgres.find(query).matches.isEmpty, "find \(query)")
        }
        #expect(try postgres.find("m j a").totalIsCapped)
    }

    /// Two or more prefixes go through the index of name prefixes, cut at
    /// `PostgresSchema.namePrefixLength` characters: a typed word longer than that still finds
    /// only the names it starts (checked whole), and words that are prefixes of each other
    /// (`ma mar`) may both stand for one name word, as on SQLite.
    @Test func longWords_andPrefixesOfEachOther_findTheSame_onBothStores() throws {
        let home = TemporaryHome()
        defer { home.remove() }
        let server = try PostgresServer.shared()
        let (sqlite, postgres) = try Self.stores(
            home,
            server,
            families: ["Abernathyson", "Abernathysmith", "Marsh", "Martinez-Abernathy", "Ma"],
            givens: ["Mark", "Maria Abernathysonny", "Ma Mar", "Jo"],
            givenEvery: 5,
            count: 300
        )
        #expect("abernathys".count == PostgresSchema.namePrefixLength)
        let queries = [
            "abernathyso ma", "abernathysm mar", "abernathys ma", "abernathysonn ma", "abernathysonnyx ma",
            "abernathysonny abernathyson", "ma abernathysmith", "ma mar", "mar ma", "ma ma", "m ma mar",
            "ma mar abernathyson", "abernathyso abernathysm", "ma mar m abernathyso abernathysm",
        ]
        for query in queries {
            for limit in [1, 20, 50] {
                let (p, q) = (try postgres.find(query, limit: limit), try sqlite.find(query, limit: limit))
                #expect(
                    p == q,
                    "find \(query): \(p.total) \(p.totalIsCapped) \(p.matches.map(\.mrn)) vs \(q.total) \(q.totalIsCapped) \(q.matches.map(\.mrn))"
                )
            }
        }
        // Not vacuous: the long words match some patients, not all their first ten characters do.
        let long = try postgres.find("abernathyso ma", limit: 500).matches.count
        let cut = try postgres.find("abernathys ma", limit: 500).matches.count
        #expect(long > 0 && long < cut)
        // One letter away is a close match (listed as such); two letters away is none.
        #expect(try postgres.find("abernathysonnyx ma").isClose)
        #expect(try postgres.find("abernathysonnyxq ma").matches.isEmpty)
        #expect(try !postgres.find("ma mar", limit: 500).matches.isEmpty)
    }

    /// One word reads the token table, two or more the GIN index: both give the whole word's
    /// patients, the same ones.
    @Test func oneWholeWord_isTheSame_fromTheTokenTable_andTheIndex() throws {
        let home = TemporaryHome()
        defer { home.remove() }
        let server = try PostgresServer.shared()
        let (_, postgres) = try Self.stores(home, server)
        for word in ["smith", "jane", "de", "zz"] {
            let fromTokens = try postgres.rows(
                "SELECT patient_id FROM patient_name_token WHERE token = \(word) ORDER BY patient_id"
            ).map { try $0.decode(Int64.self) }
            let fromIndex = try postgres.rows(
                "SELECT id FROM patient WHERE name_words @> ARRAY[\(word)]::text[] ORDER BY id"
            ).map { try $0.decode(Int64.self) }
            #expect(fromTokens == fromIndex, "\(word)")
        }
    }

    /// Each word count's statement and the MRN prefix's are prepared once per connection, and
    /// after five runs the server keeps their generic plan: nothing in their text lets a plan
    /// depend on the words.
    @Test func find_preparesItsStatementsOnce_perConnection_andStopsPlanning() throws {
        let server = try PostgresServer.shared()
        let store = try PostgresRecordStoreTests.store(server)
        let patient = Patient(
            mrn: "P1",
            given: "Pia Prim",
            family: "Prep Pratt",
            birthDate: "1970-01-01",
            sex: .unknown
        )
        try store.add(LoadedChart(patient: patient))
        let queries = ["pri", "pia pre", "pia prim pre", "pia prim prep pratt", "pia prim prep pratt p"]
        func findAll() throws {
            for query in queries {
                #expect(try store.find(query).matches.map(\.mrn) == ["P1"], "find \(query)")
            }
            #expect(try store.patients(mrnStartingWith: "p", limit: 20).matches.map(\.mrn) == ["P1"])
        }
        for _ in 0..<8 { try findAll() }
        let statements = try store.rows(
            "SELECT name, generic_plans FROM pg_prepared_statements WHERE name LIKE 'ward.find%' ORDER BY name"
        ).map { try $0.decode((String, Int).self) }
        #expect(statements.map(\.0) == ["ward.find.1", "ward.find.2", "ward.find.3", "ward.find.4", "ward.find.mrn"])
        for (name, generic) in statements { #expect(generic > 0, "\(name) planned every run") }
        // A new connection prepares them again.
        store.close()
        try store.reopen()
        try findAll()
        #expect(
            try store.rows("SELECT count(*) FROM pg_prepared_statements WHERE name LIKE 'ward.find%'").first?.decode(
                Int.self
            ) == 5
        )
    }

    /// A search whose statement fails (its table gone for a moment) fails that `find` in Ward's
    /// words and drops the connection, whose prepared statements the next `find` makes again.
    @Test func aFindThatFails_dropsTheConnection_thenPreparesAgain() throws {
        let server = try PostgresServer.shared()
        let database = try PostgresRecordStoreTests.migratedDatabase(server)
        let store = try PostgresRecordStore(settings: PostgresRecordStoreTests.settings(server, database: database))
        let patient = Patient(mrn: "F1", given: "Fay", family: "Fail", birthDate: "1970-01-01", sex: .unknown)
        try store.add(LoadedChart(patient: patient))
        #expect(try store.find("fai").matches.map(\.mrn) == ["F1"])
        #expect(try store.find("fay fai").matches.map(\.mrn) == ["F1"])
        _ = try server.psql("ALTER TABLE patient RENAME TO patient_away", database: database)
        for query in ["fai", "fay fai"] {
            do {
                _ = try store.find(query)
                Issue.record("find \(query) ran without its table")
            } catch let error as StoreError {
                #expect("\(error)".contains("SQLSTATE 42P01"), "\(error)")
                #expect(!"\(error)".contains("patient_away"))
            }
            #expect(!store.link.isOpen, "find \(query) kept its connection")
        }
        _ = try server.psql("ALTER TABLE patient_away RENAME TO patient", database: database)
        #expect(try store.find("fai").matches.map(\.mrn) == ["F1"])
        #expect(try store.find("fay fai").matches.map(\.mrn) == ["F1"])
    }
}
