import Foundation
import PostgresTestSupport
import Testing

/// `ward demo` and `ward import` through the real binary with `[records] backend =
/// "postgresql"` (issue 17): the records go to the server, never to the home's SQLite file, and
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
        let server = try PostgresServer()
        let database = try server.createDatabase("records")
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
}
