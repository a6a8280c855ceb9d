import FHIRTestSupport
import Foundation
import PostgresTestSupport
import Testing

/// `ward demo` and `ward import` through the real binary with `[records] backend =
/// "postgresql"`: the records go to the server, never to the home's SQLite file, and
/// a session then reads them as it would the same records in SQLite.
@Suite(.serialized) struct PostgresLoadEndToEndTests {
    /// A site whose records are `database` on `server`, through its socket.
    static func site(_ server: PostgresServer, _ database: String) -> String {
        let socket = server.socketDirectory.replacingOccurrences(of: "/", with: "%2F")
        return "[[plugin]]\nname = \"audit-log\"\n\n[records]\nbackend = \"postgresql\"\n"
            + "url = \"postgresql://\(server.user)@\(socket):\(server.port)/\(database)\"\n"
            + TerminalHarness.unguarded
    }

    /// What a batch of `lines` prints in `h`'s home, signed on as demo.
    static func batch(_ h: BatchHome, _ lines: [String]) throws -> String {
        let ward = try h.start(["--batch", try h.script(lines), "--user", "demo", "--password-file", h.passwordFile])
        ward.closeInput()
        #expect(try ward.waitForExit(timeout: .seconds(60)) == 0, "\(ward.standardError)")
        return ward.standardOutput
    }

    @Test func demoNoShell_loadsTheServer_readsAsTheSQLiteDemo_isReused_andRefusesOtherRecords() throws {
        let server = try PostgresServer.shared()
        let database = try server.createDatabase("records")
        try PostgresRecordsEndToEndTests.migrate(site: Self.site(server, database))
        // BatchHome runs `ward demo --patients 60 --no-shell` with the site it is given.
        let shared = try BatchHome(site: Self.site(server, database), patients: 60)
        let local = try BatchHome(patients: 60)
        #expect(!FileManager.default.fileExists(atPath: shared.home + "/records.sqlite"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: shared.home).allSatisfy { !$0.contains("staging") })
        #expect(try server.psql("SELECT count(*) FROM patient", database: database) == "60\n")
        let lines = ["find alvarez", "find ma", "find W00000", "open W0000011", "show", "show labs", "close"]
        let output = try Self.batch(shared, lines)
        #expect(output.contains("W0000011"))
        #expect(output == (try Self.batch(local, lines)))
        #expect(try shared.allAuditRecords().contains { $0["kind"] as? String == "demo" })

        // The same seed and count again: the records on the server are used as they are.
        let again = try shared.start(["demo", "--patients", "60", "--no-shell"])
        again.closeInput()
        #expect(try again.waitForExit(timeout: .seconds(60)) == 0)
        #expect(again.standardError.contains("Using the demo records already on"))
        #expect(try server.psql("SELECT count(*) FROM patient", database: database) == "60\n")

        // Another count: the database holds other records, and is left alone.
        let other = try shared.start(["demo", "--patients", "61", "--no-shell"])
        other.closeInput()
        #expect(try other.waitForExit(timeout: .seconds(60)) == 73)
        #expect(other.standardError.contains("already holds records; 'ward demo' loads only an empty one"))
        #expect(try server.psql("SELECT count(*) FROM patient", database: database) == "60\n")
    }

    /// `ward ARGS` in `h`'s home to its end: its exit status and standard error.
    static func ward(_ arguments: [String], _ h: BatchHome) throws -> (status: Int32, stderr: String) {
        let ward = try h.start(arguments)
        ward.closeInput()
        return (try ward.waitForExit(timeout: .seconds(60)), ward.standardError)
    }

    @Test func import_loadsTheServer_readsAsTheSameImportInSQLite_andRefusesAClash() throws {
        let server = try PostgresServer.shared()
        let database = try server.createDatabase("records")
        try PostgresRecordsEndToEndTests.migrate(site: Self.site(server, database))
        let shared = try BatchHome(site: Self.site(server, database), patients: 20)
        let local = try BatchHome(patients: 20)
        let bundles = shared.directory.appendingPathComponent("bundles")
        try FileManager.default.createDirectory(at: bundles, withIntermediateDirectories: true)
        try Bundles.complete("p1", given: ["Ada"], family: "Lovelace", mrn: "M1")
            .write(to: bundles.appendingPathComponent("a.json"))
        try Bundles.bundle(Bundles.everyKind("p2", given: ["José"], family: "Muñoz", mrn: "M2"))
            .write(to: bundles.appendingPathComponent("b.json"))
        for h in [shared, local] {
            let (status, stderr) = try Self.ward(["import", bundles.path], h)
            #expect(status == 0, "\(stderr)")
            #expect(stderr.contains("Imported 2 of 2 bundles: 2 patients"), "\(stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: shared.home + "/records.sqlite"))
        #expect(try server.psql("SELECT count(*) FROM patient", database: database) == "22\n")
        let lines = ["find lovelace", "find munoz", "open M1", "show", "close", "open M2", "show", "show labs"]
        let output = try Self.batch(shared, lines)
        #expect(output.contains("Lovelace") && output.contains("Muñoz"))
        #expect(output == (try Self.batch(local, lines)))
        #expect(try shared.auditRecords().contains { $0["kind"] as? String == "import" })

        // A new id with a demo patient's MRN: refused as with SQLite, and nothing changes.
        let evil = shared.directory.appendingPathComponent("evil.json")
        try Bundles.bundle([Bundles.patient("intruder", given: ["Mallory"], family: "Evil", mrn: "W0000011")])
            .write(to: evil)
        let (status, stderr) = try Self.ward(["import", evil.path], shared)
        #expect(status == 65)
        #expect(
            stderr.contains(
                "ward: \(evil.path): Patient \"intruder\" has the MRN \"W0000011\", which a stored patient with no "
                    + "FHIR id holds"
            ),
            "\(stderr)"
        )
        #expect(try server.psql("SELECT count(*) FROM patient", database: database) == "22\n")
        #expect(!(try Self.batch(shared, ["find mallory"])).contains("Evil"))
    }

    @Test func aDemoEndedBySIGTERM_leavesNoStagingFile_andNothingOnTheServer() throws {
        let server = try PostgresServer.shared()
        let database = try server.createDatabase("records")
        let h = try BatchHome(patients: 1)
        try Self.site(server, database).write(toFile: h.site, atomically: true, encoding: .utf8)
        let staging = h.home + "/records.demo-staging.sqlite"
        // Before `ward db migrate`, a demo is refused as a session is, and generates nothing.
        let (status, stderr) = try Self.ward(["demo", "--patients", "10", "--no-shell"], h)
        #expect(status == 78)
        #expect(stderr.contains("has no Ward schema yet; an administrator creates it with 'ward db migrate'"))
        #expect(!FileManager.default.fileExists(atPath: staging))
        try PostgresRecordsEndToEndTests.migrate(site: Self.site(server, database))
        let ward = try h.start(["demo", "--patients", "2000000", "--no-shell"])
        ward.closeInput()
        // The load has begun once the staging file holds something.
        try eventually("the demo's staging file", timeout: .seconds(30)) {
            ((try? FileManager.default.attributesOfItem(atPath: staging))?[.size] as? Int ?? 0) > 0
        }
        kill(ward.pid, SIGTERM)
        #expect(try ward.waitForExit(timeout: .seconds(30)) == 128 + SIGTERM)
        #expect(!FileManager.default.fileExists(atPath: staging))
        #expect(try server.psql("SELECT count(*) FROM patient", database: database) == "0\n")
    }
}
