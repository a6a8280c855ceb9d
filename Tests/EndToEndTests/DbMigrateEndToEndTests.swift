import Foundation
import PostgresTestSupport
import Testing

/// `ward db migrate`, the real binary, on a real PostgreSQL 15 and on a home's SQLite file: what
/// it prints, what a session does before it has run, its refusal while a session is connected,
/// and its audit records.
@Suite(.serialized) struct DbMigrateEndToEndTests {
    static let migrations = [
        "1-tables", "2-indexes-and-name-search", "3-immunizations-procedures-care-plans-reports",
        "4-code-systems-and-presented-forms", "5-name-words", "6-name-prefixes", "7-folded-names",
        "8-site-users", "9-live-sessions",
        "10-audit-trail", "11-note-corrections",
        "12-patient-count",
    ]

    /// An audited site whose records are on the server `url` names.
    static func site(url: String) -> String {
        "[[plugin]]\nname = \"audit-log\"\n\n[records]\nbackend = \"postgresql\"\nurl = \"\(url)\"\n"
            + TerminalHarness.unguarded
    }

    /// The migration records of the home's audit log.
    /// The migration records of the home's audit log, each migration's outcome (the record of
    /// its start, written before it, left out).
    static func migrateRecords(_ h: BatchHome) throws -> [[String: Any]] {
        try h.auditRecords().filter { $0["kind"] as? String == "db-migrate" && $0["outcome"] as? String != "started" }
    }

    @Test func postgres_sessionsWaitForMigrate_whichSaysWhatItDid_andIsAudited() throws {
        let server = try PostgresServer.shared()
        let database = try server.createDatabase("records")
        let socket = server.socketDirectory.replacingOccurrences(of: "/", with: "%2F")
        let h = try BatchHome(patients: 3)
        try Self.site(url: "postgresql://\(server.user)@\(socket):\(server.port)/\(database)")
            .write(toFile: h.site, atomically: true, encoding: .utf8)
        let target = "\(database) on \(server.socketDirectory)/.s.PGSQL.\(server.port)"

        // Before the schema exists, a session stops before sign-on and names the command.
        let early = try h.start(["-c", "find lovelace", "--user", "demo", "--password-file", h.passwordFile])
        early.closeInput()
        #expect(try early.waitForExit(timeout: .seconds(30)) == 78)
        #expect(
            early.standardError
                == "ward: the records database \(database) on \(server.socketDirectory)/.s.PGSQL.\(server.port) has no "
                + "Ward schema yet; an administrator creates it with 'ward db migrate' (see DATABASE in ward(1))\n"
        )
        #expect(!early.standardError.contains("Password"))
        // On a terminal too: no sign-on prompt, the message, 78.
        let terminal = try TerminalHarness(
            site: Self.site(url: "postgresql://\(server.user)@\(socket):\(server.port)/\(database)")
        )
        try terminal.waitFor("'ward db migrate'")
        #expect(try terminal.waitForExit() == 78)
        #expect(!(try terminal.screen()).contains("Username:"))
        #expect(try server.psql("SELECT to_regclass('ward_migrations') IS NULL", database: database) == "t\n")

        let first = try h.start(["db", "migrate"])
        #expect(try first.waitForExit(timeout: .seconds(30)) == 0, "\(first.standardError)")
        try h.shareUsers(server, database)
        #expect(
            first.standardOutput
                == "\(target): schema at version \(Self.migrations.count), applied: \(Self.migrations.joined(separator: ", "))\n"
        )
        let again = try h.start(["db", "migrate"])
        #expect(try again.waitForExit(timeout: .seconds(30)) == 0)
        #expect(again.standardOutput == "\(target): schema at version \(Self.migrations.count), already up to date\n")

        let records = try Self.migrateRecords(h)
        #expect(records.count == 2)
        #expect(records.first?["backend"] as? String == "postgresql")
        #expect(records.first?["database"] as? String == target)
        #expect(records.first?["version"] as? Int == Self.migrations.count)
        #expect(records.first?["applied"] as? String == Self.migrations.joined(separator: " "))
        #expect(records.first?["forced"] as? String == "no")
        #expect(records.first?["outcome"] as? String == "ok")
        #expect(records.last?["applied"] as? String == "")
        #expect(try h.verifyAudit() == 0)

        // A session now runs.
        let later = try h.start(["-c", "find lovelace", "--user", "demo", "--password-file", h.passwordFile])
        later.closeInput()
        #expect(try later.waitForExit(timeout: .seconds(30)) == 0, "\(later.standardError)")
    }

    @Test func postgres_migrateIsRefusedWhileSessionsAreConnected_inAPtyAndAScript_andForceMigrates() throws {
        let server = try PostgresServer.shared()
        let database = try server.createDatabase("records")
        let socket = server.socketDirectory.replacingOccurrences(of: "/", with: "%2F")
        let h = try BatchHome(patients: 3)
        try Self.site(url: "postgresql://\(server.user)@\(socket):\(server.port)/\(database)")
            .write(toFile: h.site, atomically: true, encoding: .utf8)
        _ = try TerminalHarness.run(TerminalHarness.wardPath, ["db", "migrate"], environment: h.environment)
        #expect(TerminalHarness.lastStatus == 0)
        try h.shareUsers(server, database)

        // Two sessions sign on and hold their connections: a script, and a user at a terminal.
        let session = try h.start(["--batch", "-", "--user", "demo", "--password-file", h.passwordFile])
        session.send("find lovelace")
        try session.waitFor("No patient matches")
        let terminal = try TerminalHarness(
            site: Self.site(url: "postgresql://\(server.user)@\(socket):\(server.port)/\(database)")
        )
        try terminal.signOn()
        // Meanwhile a newer Ward's migration appears: undo the last one, as if never applied.
        try server.psql(
            """
            DROP INDEX patient_name_prefixes;
            DROP FUNCTION ward_name_prefixes(text[]);
            DELETE FROM ward_migrations WHERE identifier = '6-name-prefixes';
            """,
            database: database
        )
        let refused = try h.start(["db", "migrate"])
        #expect(try refused.waitForExit(timeout: .seconds(30)) == 75)
        #expect(
            refused.standardError
                == "ward: 2 Ward sessions are connected to \(database) on \(server.socketDirectory)/.s.PGSQL.\(server.port) "
                + "(from local socket), and migrating (6-name-prefixes) would lock tables they "
                + "read. Nothing was changed. Run it again when they have signed off or locked (a locked session "
                + "holds no connection), or with --force.\n"
        )
        #expect(
            try server.psql("SELECT count(*) FROM ward_migrations", database: database)
                == "\(Self.migrations.count - 1)\n"
        )

        let forced = try h.start(["db", "migrate", "--force"])
        #expect(try forced.waitForExit(timeout: .seconds(30)) == 0, "\(forced.standardError)")
        #expect(
            forced.standardOutput.hasSuffix("schema at version \(Self.migrations.count), applied: 6-name-prefixes\n")
        )
        // The sessions go on.
        session.send("find lovelace")
        session.closeInput()
        #expect(try session.waitForExit(timeout: .seconds(30)) == 0, "\(session.standardError)")
        try terminal.enter("find lovelace")
        try terminal.waitFor("No patient matches")
        try terminal.press("C-d")
        #expect(try terminal.waitForExit() == 0)

        let records = try Self.migrateRecords(h)
        #expect(records.count == 3)
        #expect(records[1]["outcome"] as? String == "failed" && records[1]["status"] as? Int == 75)
        #expect(records[2]["forced"] as? String == "yes" && records[2]["outcome"] as? String == "ok")
        #expect(records[2]["applied"] as? String == "6-name-prefixes")
    }

    @Test func sqlite_migrateOnAHome_isUpToDate_andAudited() throws {
        let h = try BatchHome(patients: 3)
        let run = try h.start(["db", "migrate"])
        #expect(try run.waitForExit(timeout: .seconds(30)) == 0, "\(run.standardError)")
        #expect(
            run.standardOutput
                == "\(h.home)/records.sqlite: schema at version \(Self.migrations.count), already up to date\n"
        )
        let records = try Self.migrateRecords(h)
        #expect(records.count == 1)
        #expect(records.first?["backend"] as? String == "sqlite")
        #expect(records.first?["database"] as? String == "\(h.home)/records.sqlite")
        #expect(records.first?["outcome"] as? String == "ok")

        // A new home: the file is made, every migration applied.
        try FileManager.default.removeItem(atPath: h.home + "/records.sqlite")
        let fresh = try h.start(["db", "migrate"])
        #expect(try fresh.waitForExit(timeout: .seconds(30)) == 0, "\(fresh.standardError)")
        #expect(
            fresh.standardOutput
                == "\(h.home)/records.sqlite: schema at version \(Self.migrations.count), applied: \(Self.migrations.joined(separator: ", "))\n"
        )
    }
}

extension DbMigrateEndToEndTests {
    @Test func postgres_sessionRole_isNarrowedByTheOwnersMigration_andSessionsRunAsIt() throws {
        let server = try PostgresServer.shared()
        let database = try server.createDatabase("records")
        let owner = server.uniqueName("owner")
        let session = server.uniqueName("session")
        try server.psql("CREATE ROLE \(owner) LOGIN; CREATE ROLE \(session) LOGIN")
        try server.psql("GRANT CREATE ON SCHEMA public TO \(owner)", database: database)
        let socket = server.socketDirectory.replacingOccurrences(of: "/", with: "%2F") + ":\(server.port)"
        let h = try BatchHome(patients: 3)
        // The administrator's site file names the owner; the sessions' names the session role.
        let ownerSite = h.directory.appendingPathComponent("owner.toml").path
        try Self.site(url: "postgresql://\(owner)@\(socket)/\(database)")
            .write(toFile: ownerSite, atomically: true, encoding: .utf8)
        try Self.site(url: "postgresql://\(session)@\(socket)/\(database)")
            .write(toFile: h.site, atomically: true, encoding: .utf8)

        let migrate = try h.start(["db", "migrate", "--site", ownerSite, "--session-role", session])
        #expect(try migrate.waitForExit(timeout: .seconds(30)) == 0, "\(migrate.standardError)")
        #expect(
            migrate.standardOutput.hasSuffix(
                "; session role \(session): SELECT on the records, INSERT on note and audit_record, its own rows of ward_session, nothing else\n"
            )
        )
        #expect(try Self.migrateRecords(h).last?["session-role"] as? String == session)
        try h.shareUsers(server, database)
        try server.psql(
            """
            INSERT INTO patient (id, mrn, given, family, birth_date, sex, phone, address)
                VALUES (1, 'PG1', 'Ada', 'Lovelace', '1815-12-10', 'female', '', '');
            INSERT INTO patient_name_token (token, patient_id) VALUES ('ada', 1), ('lovelace', 1);
            """,
            database: database
        )
        let ward = try h.start(["--batch", "-", "--user", "demo", "--password-file", h.passwordFile])
        ward.send("find lovelace", "open PG1", "note Added by the session role.")
        ward.closeInput()
        #expect(try ward.waitForExit(timeout: .seconds(30)) == 0, "\(ward.standardError)")
        #expect(
            try server.psql("SELECT author, text FROM note", database: database) == "demo|Added by the session role.\n"
        )
        // What the session role's password gives, outside Ward: no change, no removal, no DDL.
        for statement in ["UPDATE note SET text = 'x'", "DELETE FROM note", "DROP TABLE note"] {
            #expect(throws: PostgresServer.Failure.self, "\(statement)") {
                try server.psql("SET ROLE \(session); \(statement)", database: database)
            }
        }
        #expect(try server.psql("SELECT text FROM note", database: database) == "Added by the session role.\n")

        // A file has no roles.
        let sqlite = try BatchHome(patients: 3)
        let refused = try sqlite.start(["db", "migrate", "--session-role", session])
        #expect(try refused.waitForExit(timeout: .seconds(30)) == 64)
        #expect(refused.standardError.contains("--session-role is for records on PostgreSQL"))
    }
}
