import FHIRTestSupport
import Foundation
import PostgresTestSupport
import Testing

@testable import WardRecords

/// `ward import` into PostgreSQL: the same bundles and exports imported into both
/// stores must give the same patients, charts and search results, the same clash refusals, and
/// a failure must leave the shared database as it was.
@Suite struct PostgresImportTests {
    /// An SQLite store in a fresh home and a PostgreSQL store on a fresh database of `server`.
    final class Stores {
        let home = TemporaryHome()
        let sqlite: SQLiteRecordStore
        let postgres: PostgresRecordStore
        let server: PostgresServer
        /// The PostgreSQL store's database: the test's own on the shared server.
        let database: String

        init() throws {
            server = try PostgresServer.shared()
            sqlite = try SQLiteRecordStore(home: home.path)
            database = try PostgresRecordStoreTests.migratedDatabase(server)
            postgres = try PostgresRecordStore(
                settings: PostgresRecordStoreTests.settings(server, database: database)
            )
        }

        deinit { home.remove() }

        /// Imports `data` into both; both must succeed or fail alike. The reports, or the errors.
        @discardableResult
        func importing(_ data: Data, file: String = "bundle.json") -> (String, String) {
            func run(_ importer: FHIRImporter) -> String {
                var report = ImportReport()
                do {
                    try importer.importBundle(data, file: file, into: &report)
                    return "\(report.bundles) \(report.patients) \(sorted(report.imported)) \(sorted(report.skipped))"
                } catch {
                    return "\(error)"
                }
            }
            return (run(FHIRImporter(store: sqlite)), run(FHIRImporter(store: postgres)))
        }

        /// Every section of the chart of `mrn`, from both stores, must be the same.
        func expectSameChart(_ mrn: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
            let a = try sqlite.chart(mrn: mrn)
            let b = try postgres.chart(mrn: mrn)
            #expect(b.patient == a.patient, sourceLocation: sourceLocation)
            #expect(b.allergies == a.allergies, sourceLocation: sourceLocation)
            #expect(b.problems == a.problems, sourceLocation: sourceLocation)
            #expect(b.medications == a.medications, sourceLocation: sourceLocation)
            #expect(b.observations == a.observations, sourceLocation: sourceLocation)
            #expect(b.encounters == a.encounters, sourceLocation: sourceLocation)
            #expect(b.notes == a.notes, sourceLocation: sourceLocation)
            #expect(b.immunizations == a.immunizations, sourceLocation: sourceLocation)
            #expect(b.procedures == a.procedures, sourceLocation: sourceLocation)
            #expect(b.carePlans == a.carePlans, sourceLocation: sourceLocation)
            #expect(b.reports == a.reports, sourceLocation: sourceLocation)
        }
    }

    /// `fhir_id` is not unique: with two patients of one FHIR id, both stores give an entry that
    /// names it to the same one, the lowest row id, whatever order the rows were written in.
    @Test func anEntryForASharedFHIRID_goesToTheSamePatient_inBothStores() throws {
        let stores = try Stores()
        for (id, mrn) in [(7, "B7"), (3, "A3")] {
            try stores.sqlite.write { db in
                try db.execute(
                    """
                    INSERT INTO patient (id, mrn, fhir_id, given, family, birth_date, sex, phone, address, name_words)
                    VALUES (?, ?, 'shared', 'Ada', 'Lovelace', '1815-12-10', 'female', '', '', 'ada lovelace')
                    """,
                    [.integer(id), .text(mrn)]
                )
            }
            try stores.postgres.rows(
                """
                INSERT INTO patient (id, mrn, fhir_id, given, family, birth_date, sex, phone, address, restricted)
                VALUES (\(Int64(id)), \(mrn), 'shared', 'Ada', 'Lovelace', '1815-12-10', 'female', '', '', false)
                """
            )
        }
        let (a, b) = stores.importing(Bundles.bundle([Bundles.condition("shared")]))
        #expect(a == b)
        for store in [stores.sqlite, stores.postgres] as [any RecordStore] {
            #expect(try store.chart(mrn: "A3").problems.count == 1)
            #expect(try store.chart(mrn: "B7").problems.isEmpty)
        }
    }

    @Test func theTestBundles_importTheSame_intoBothStores() throws {
        let stores = try Stores()
        let bundles = [
            Bundles.complete("p1", given: ["Ada"], family: "Lovelace", mrn: "M1"),
            Bundles.bundle(Bundles.everyKind("p2", given: ["José", "María"], family: "Muñoz", mrn: "M2")),
            Bundles.bundle(
                [Bundles.patient("p3", given: ["Grace"], family: "O'Hopper", mrn: "m3")]
                    + Bundles.realMeasurements("p3")
                    + [Bundles.presentedReport("p3", contentType: "text/plain", data: "Tm90ZWQu")]
            ),
            // Entries for patients imported before, by FHIR id.
            Bundles.bundle([Bundles.condition("p1"), Bundles.bloodPressure("p2")]),
        ]
        for (index, bundle) in bundles.enumerated() {
            let (a, b) = stores.importing(bundle, file: "b\(index).json")
            #expect(a == b)
            #expect(!a.contains("error"))
        }
        // A note written in Ward, then a re-import of the same patient: refreshed, note kept.
        for store in [stores.sqlite, stores.postgres] as [any RecordStore] {
            _ = try store.addNote(mrn: "M1", author: "alice", text: "Kept.", at: Date(timeIntervalSince1970: 5000))
        }
        let (a, b) = stores.importing(Bundles.complete("p1", given: ["Ada", "King"], family: "Lovelace", mrn: "M1"))
        #expect(a == b)
        for mrn in ["M1", "M2", "M3"] { try stores.expectSameChart(mrn) }
        #expect(try stores.postgres.chart(mrn: "M1").notes.map(\.text) == ["Kept."])
        #expect(try stores.postgres.chart(mrn: "M1").patient.given == "Ada King")
        for query in ["ada", "king", "lovelace", "jose", "MUNOZ maria", "o'hopper", "hop", "m", "M2", "x"] {
            #expect(try stores.postgres.find(query) == stores.sqlite.find(query), "find \(query)")
        }
        #expect(try stores.postgres.patientCount() == 3)
    }

    @Test func anNDJSONExport_importsTheSame_intoBothStores() throws {
        let stores = try Stores()
        let directory = stores.home.path + "/export"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let files = Bundles.ndjson(
            Bundles.everyKind("e1", given: ["Eve"], family: "Export", mrn: "E1")
                + Bundles.everyKind("e2", given: ["Ed"], family: "Export", mrn: "E2")
        )
        var paths: [String] = []
        for (name, data) in files.sorted(by: { $0.key < $1.key }) {
            try data.write(to: URL(fileURLWithPath: directory + "/" + name))
            paths.append(directory + "/" + name)
        }
        var reports: [String] = []
        for importer in [FHIRImporter(store: stores.sqlite), FHIRImporter(store: stores.postgres)] {
            let report = importer.importBundles(at: [directory])
            #expect(report.failures.isEmpty)
            reports.append(
                "\(report.exportsImported) \(report.patients) \(sorted(report.imported)) \(sorted(report.skipped))"
            )
        }
        #expect(reports[0] == reports[1])
        for mrn in ["E1", "E2"] { try stores.expectSameChart(mrn) }
        #expect(try stores.postgres.find("export") == stores.sqlite.find("export"))
    }

    @Test func clashes_areRefusedAsWithSQLite_andChangeNothing() throws {
        let stores = try Stores()
        stores.importing(Bundles.complete("victim-id", given: ["Ada"], family: "Lovelace", mrn: "M1"))
        let before = try stores.postgres.chart(mrn: "M1")
        let clashes = [
            // Another id holding the victim's MRN (in another case, too).
            Bundles.bundle([
                Bundles.patient("intruder-id", given: ["Mallory"], family: "Evil", mrn: "M1"),
                Bundles.condition("intruder-id"),
            ]),
            Bundles.bundle([Bundles.patient("intruder-id", given: ["Mallory"], family: "Evil", mrn: "m1")]),
            // The victim's id under another MRN, after a patient that is fine on its own.
            Bundles.bundle([
                Bundles.patient("p2", given: ["Grace"], family: "Hopper", mrn: "M2"),
                Bundles.patient("victim-id", given: ["Eve"], family: "Other", mrn: "M9"),
            ]),
        ]
        for clash in clashes {
            let (a, b) = stores.importing(clash, file: "evil.json")
            #expect(a == b)
            #expect(b.contains("evil.json: Patient") && b.hasSuffix("nothing of this bundle was imported"))
        }
        #expect(try stores.postgres.patientCount() == 1)
        #expect(try stores.postgres.find("mallory").matches.isEmpty)
        #expect(try stores.postgres.chart(mrn: "M1").problems == before.problems)
        #expect(try stores.postgres.lookUp(mrn: "M2") == nil)
    }

    @Test func aFailedImport_leavesTheDatabaseAsItWas() throws {
        let stores = try Stores()
        stores.importing(Bundles.complete("p1", given: ["Ada"], family: "Lovelace", mrn: "M1"))
        let count =
            "SELECT (SELECT count(*) FROM patient) || ' ' || (SELECT count(*) FROM patient_name_token) "
            + "|| ' ' || (SELECT count(*) FROM observation) || ' ' || (SELECT count(*) FROM problem)"
        let before = try stores.server.psql(count, database: stores.database)
        // The second pass finds a reference to no patient, after the new patient was written.
        let dangling = Bundles.bundle([
            Bundles.patient("p2", given: ["Grace"], family: "Hopper", mrn: "M2"),
            Bundles.bloodPressure("p2"), Bundles.condition("nobody"),
        ])
        let (a, b) = stores.importing(dangling, file: "dangling.json")
        #expect(a == b)
        #expect(b.hasPrefix("dangling.json: "))
        #expect(try stores.server.psql(count, database: stores.database) == before)

        // The server refuses the entries when they are sent, at the end of the bundle.
        try stores.server.psql(
            """
            CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'no'; END $$;
            CREATE TRIGGER refuse_problems BEFORE INSERT ON problem FOR EACH ROW EXECUTE FUNCTION refuse();
            """,
            database: stores.database
        )
        var report = ImportReport()
        #expect(throws: StoreError.database(reason: "PostgreSQL error SQLSTATE P0001")) {
            try FHIRImporter(store: stores.postgres).importBundle(
                Bundles.complete("p3", given: ["Alan"], family: "Turing", mrn: "M3"),
                file: "refused.json",
                into: &report
            )
        }
        #expect(try stores.server.psql(count, database: stores.database) == before)
        #expect(try stores.postgres.lookUp(mrn: "M3") == nil)
        // The connection is usable after the rollback.
        #expect(try stores.postgres.patientCount() == 1)
    }

    @Test func textHoldingNUL_isRefusedByThePostgresStore_namingTheBundle() throws {
        let stores = try Stores()
        let (_, b) = stores.importing(
            Bundles.bundle([Bundles.patient("p1", given: ["nul\u{0}byte"], family: "Lovelace", mrn: "M1")]),
            file: "nul.json"
        )
        #expect(
            b == "nul.json: Patient: holds U+0000, which the records server (PostgreSQL) cannot store; "
                + "nothing of this bundle was imported"
        )
        #expect(try stores.postgres.patientCount() == 0)
    }
}

/// A count by resource type, in a fixed order.
private func sorted(_ counts: [String: Int]) -> String {
    counts.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
}
