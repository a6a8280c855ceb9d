import Foundation
import PostgresTestSupport
import Testing

/// The real binary with `[records] backend = "postgresql"`: against a real PostgreSQL 15 (the
/// tests' shared server, a database of the test's own), and against a port where nothing listens.
@Suite(.serialized) struct PostgresRecordsEndToEndTests {
    private static func site(url: String, extra: String = "") -> String {
        "[[plugin]]\nname = \"audit-log\"\n\n[records]\nbackend = \"postgresql\"\nurl = \"\(url)\"\n\(extra)"
            + TerminalHarness.unguarded
    }

    @Test func anUnreachableServer_stopsWard_withExit69_namingHostAndPort() throws {
        let port = PostgresServer.freePort()
        let h = try BatchHome(patients: 5)
        try Self.site(
            url: "postgresql://ward@127.0.0.1:\(port)/records",
            extra: "tls = \"disable\"\nconnect-timeout = \"1s\"\n"
        ).write(toFile: h.site, atomically: true, encoding: .utf8)
        let ward = try h.start(["-c", "find alvarez", "--user", "demo", "--password-file", h.passwordFile])
        ward.closeInput()
        #expect(try ward.waitForExit(timeout: .seconds(20)) == 69)
        #expect(ward.standardError.contains("cannot reach the records server 127.0.0.1:\(port): connection refused"))
        #expect(!ward.standardError.contains("NIO") && !ward.standardError.contains("PSQLError"))
        #expect(ward.standardOutput.isEmpty)
    }

    @Test func findOpenAndNote_readAndWriteTheServersRecords() throws {
        let server = try PostgresServer.shared()
        let database = try server.createDatabase("records")
        let socket = server.socketDirectory.replacingOccurrences(of: "/", with: "%2F")
        // The home's demo patients are made before the site names the server.
        let h = try BatchHome(patients: 5)
        try Self.site(url: "postgresql://\(server.user)@\(socket):\(server.port)/\(database)")
            .write(toFile: h.site, atomically: true, encoding: .utf8)
        let check = try TerminalHarness.run(TerminalHarness.wardPath, ["config", "check"], environment: h.environment)
        #expect(check.contains("[records]") && check.contains("backend = \"postgresql\""))
        #expect(check.contains("url = \"postgresql://\(server.user)@\(socket):\(server.port)/\(database)\""))
        // The administrator makes the schema; the home's own demo patients are not what Ward reads.
        _ = try TerminalHarness.run(TerminalHarness.wardPath, ["db", "migrate"], environment: h.environment)
        #expect(TerminalHarness.lastStatus == 0)
        #expect(try server.psql("SELECT count(*) FROM ward_migrations", database: database).hasPrefix("12"))
        try h.shareUsers(server, database)
        let first = try h.start(["-c", "find alvarez", "--user", "demo", "--password-file", h.passwordFile])
        first.closeInput()
        #expect(try first.waitForExit(timeout: .seconds(30)) == 0)
        #expect(!first.standardOutput.contains("W0000011"))

        try server.psql(
            """
            INSERT INTO patient (id, mrn, given, family, birth_date, sex, phone, address)
                VALUES (1, 'PG1', 'Ada', 'Lovelace', '1815-12-10', 'female', '', '');
            INSERT INTO patient_name_token (token, patient_id) VALUES ('ada', 1), ('lovelace', 1);
            """,
            database: database
        )
        let script = try h.script(["find love", "open PG1", "note Seen on another host.", "show notes"])
        let ward = try h.start([
            "--batch", script, "--user", "demo", "--password-file", h.passwordFile,
        ])
        ward.closeInput()
        #expect(try ward.waitForExit(timeout: .seconds(30)) == 0, "\(ward.standardError)")
        #expect(ward.standardOutput.contains("PG1  Lovelace, Ada"))
        #expect(ward.standardOutput.contains("Seen on another host."))
        // The note is in the server's database, for every other host.
        #expect(
            try server.psql("SELECT author, text FROM note", database: database)
                == "demo|Seen on another host.\n"
        )
    }
}

extension PostgresRecordsEndToEndTests {
    /// Runs `ward db migrate` under `site`, from a home of its own, as an administrator would
    /// before the first session.
    static func migrate(site: String) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "ward-migrate-\(UUID().uuidString)"
        )
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let siteFile = directory.appendingPathComponent("site.toml").path
        try site.write(toFile: siteFile, atomically: true, encoding: .utf8)
        let environment = [
            "WARD_HOME": directory.appendingPathComponent("home").path, "WARD_SITE": siteFile,
            "HOME": directory.path,
        ]
        _ = try TerminalHarness.run(TerminalHarness.wardPath, ["db", "migrate"], environment: environment)
        #expect(TerminalHarness.lastStatus == 0, "ward db migrate")
    }

    @Test func aConnectionDroppedMidSession_costsAtMostOneCommand_andTheSessionGoesOn() throws {
        let server = try PostgresServer.shared()
        let database = try server.createDatabase("records")
        let socket = server.socketDirectory.replacingOccurrences(of: "/", with: "%2F")
        let h = try BatchHome(patients: 5)
        try Self.site(url: "postgresql://\(server.user)@\(socket):\(server.port)/\(database)")
            .write(toFile: h.site, atomically: true, encoding: .utf8)
        _ = try TerminalHarness.run(TerminalHarness.wardPath, ["db", "migrate"], environment: h.environment)
        #expect(TerminalHarness.lastStatus == 0)  // the schema is made
        try h.shareUsers(server, database)
        try server.psql(
            """
            INSERT INTO patient (id, mrn, given, family, birth_date, sex, phone, address)
                VALUES (1, 'PG1', 'Ada', 'Lovelace', '1815-12-10', 'female', '', '');
            INSERT INTO patient_name_token (token, patient_id) VALUES ('ada', 1), ('lovelace', 1);
            """,
            database: database
        )
        let p = try h.start([
            "--batch", "-", "--user", "demo", "--password-file", h.passwordFile, "--on-error", "continue",
        ])
        p.send("find lovelace")
        try p.waitFor("PG1  Lovelace, Ada")
        try server.psql(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                + "WHERE application_name = 'ward' AND datname = '\(database)'"
        )
        let start = ContinuousClock.now
        p.send("find lovelace")
        p.send("open PG1")
        p.closeInput()
        let status = try p.waitForExit(timeout: .seconds(30))
        // The line after the drop either failed, in Ward's words, or ran on a new connection;
        // neither waited out the statement timeout (5 s).
        #expect(ContinuousClock.now - start < .seconds(3))
        #expect(status == 0 || p.standardError.contains("<stdin>:2: records database error: the connection"))
        #expect(!p.standardError.contains("PSQLError") && !p.standardError.contains("NIO"))
        #expect(p.standardOutput.contains("Opened PG1"))
        // A find that failed listed nobody, yet is on record: one failed list naming no patient,
        // and never the name searched for.
        let failed = try h.auditRecords().filter {
            $0["action"] as? String == "list" && $0["outcome"] as? String == "failed"
        }
        #expect(failed.count == (status == 0 ? 0 : 1))
        #expect(failed.allSatisfy { $0["mrn"] as? String == "" })
        #expect(!(try h.allAuditRecords()).contains { "\($0)".localizedCaseInsensitiveContains("lovelace") })
    }
}

/// The wipe with the records on a server: a chart decoded from the wire, and the driver's
/// buffers it came through, are gone from memory after a lock (the core-image proof of
/// `WipeCoreImageTests`, with a canary patient in PostgreSQL).
@Suite(.serialized, .enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/gcore")))
struct PostgresWipeCoreImageTests {
    @Test func afterALock_aChartReadFromTheServerIsNowhereInMemory() throws {
        let server = try PostgresServer.shared()
        let database = try server.createDatabase("records")
        let socket = server.socketDirectory.replacingOccurrences(of: "/", with: "%2F")
        let site =
            "plugin = []\n\n[records]\nbackend = \"postgresql\"\n"
            + "url = \"postgresql://\(server.user)@\(socket):\(server.port)/\(database)\"\n"
            + TerminalHarness.unguarded
        try PostgresRecordsEndToEndTests.migrate(site: site)
        let t = try TerminalHarness(site: site)
        try t.signOn()
        let family = "Zq" + WipeCoreImageTests.canary().dropFirst(2).prefix(10)
        let note = WipeCoreImageTests.canary()
        try server.psql(
            """
            INSERT INTO patient (id, mrn, given, family, birth_date, sex, phone, address)
                VALUES (1, 'C0000001', 'Canary', '\(family)', '1970-01-01', 'female', '', '');
            INSERT INTO patient_name_token (token, patient_id) VALUES ('canary', 1), ('\(family.lowercased())', 1);
            INSERT INTO note (patient_id, author, time, text) VALUES (1, 'alice', 0, '\(note)');
            """,
            database: database
        )
        try t.enter("open C0000001")
        try t.waitFor("Opened C0000001")
        try t.enter("show")
        try t.waitFor(String(family))
        let pid = try t.wardPID()
        let image = WipeCoreImageTests()

        let before = try image.coreImage(of: pid, in: t.directory)
        #expect(image.occurrences(of: String(family), in: before) > 0, "control: the name must be in memory")
        #expect(image.occurrences(of: note, in: before) > 0, "control: the note must be in memory")

        try t.enter("lock")
        try t.waitFor("Password for alice:")
        // The site's sessions are listed on the server; "locked" is written there after the wipe.
        try eventually("the session listed locked on the server") {
            try server.psql("SELECT state FROM ward_session", database: database) == "locked\n" ? true : nil
        }
        let after = try image.coreImage(of: pid, in: t.directory)
        #expect(image.occurrences(of: String(family), in: after) == 0)
        #expect(image.occurrences(of: note, in: after) == 0)
        #expect(!(try t.screenAndScrollback()).contains(String(family)))
        try t.enter(TerminalHarness.password)
        try t.waitFor("C0000001]>")  // reopened from the server after sign-on
        try t.enter("show")
        try t.waitFor(String(family))
        try t.press("C-d")
        #expect(try t.waitForExit() == 0)
    }
}
