import Foundation
import PostgresTestSupport
import Testing

/// One audit trail for the site, append-only notes and `ward config check` of the database,
/// through the real binary against a real PostgreSQL 15. Two homes stand for two hosts (they
/// share this machine's host name, and each keeps a chain of its own); a third, the auditor's,
/// connects as the tables' owner, as man/ward.1 AUDIT sets it up.
@Suite(.serialized) struct SiteAuditTrailEndToEndTests {
    private static func site(url: String, extra: String = "") -> String {
        "[[plugin]]\nname = \"audit-log\"\n\n[records]\nbackend = \"postgresql\"\nurl = \"\(url)\"\n\(extra)"
            + TerminalHarness.unguarded
    }

    /// A database migrated by its owner, a session role, two hosts' homes and the auditor's.
    private struct Site {
        let server: PostgresServer
        let database: String
        let session: String
        let hostA: BatchHome
        let hostB: BatchHome
        let auditor: BatchHome

        /// `records`: more of the hosts' `[records]` table.
        init(records: String = "") throws {
            server = try PostgresServer.shared()
            database = try server.createDatabase("site")
            session = server.uniqueName("session")
            try server.psql("CREATE ROLE \(session) LOGIN")
            let socket = server.socketDirectory.replacingOccurrences(of: "/", with: "%2F")
            let sessions = SiteAuditTrailEndToEndTests.site(
                url: "postgresql://\(session)@\(socket):\(server.port)/\(database)",
                extra: records
            )
            let owner = SiteAuditTrailEndToEndTests.site(
                url: "postgresql://\(server.user)@\(socket):\(server.port)/\(database)"
            )
            // Each home's demo records are made before its site file names the server.
            hostA = try BatchHome(patients: 5)
            hostB = try BatchHome(patients: 5)
            auditor = try BatchHome(patients: 5)
            for (home, text) in [(hostA, sessions), (hostB, sessions), (auditor, owner)] {
                try text.write(toFile: home.site, atomically: true, encoding: .utf8)
            }
            let migrate = try auditor.start(["db", "migrate", "--session-role", session])
            #expect(try migrate.waitForExit(timeout: .seconds(60)) == 0, "\(migrate.standardError)")
            // The site's users are the database's: demo, as both homes made it.
            try hostA.shareUsers(server, database)
            try server.psql(
                """
                INSERT INTO patient (id, mrn, given, family, birth_date, sex, phone, address)
                    VALUES (1, 'PG1', 'Ada', 'Lovelace', '1815-12-10', 'female', '', '');
                INSERT INTO patient_name_token (token, patient_id) VALUES ('ada', 1), ('lovelace', 1);
                """,
                database: database
            )
        }

        /// Runs `lines` as a batch at `home`; its standard output.
        func batch(_ home: BatchHome, _ lines: [String]) throws -> String {
            let script = try home.script(lines)
            let ward = try home.start(["--batch", script, "--user", "demo", "--password-file", home.passwordFile])
            ward.closeInput()
            #expect(try ward.waitForExit(timeout: .seconds(30)) == 0, "\(ward.standardError)")
            return ward.standardOutput
        }

        /// `ward ARGS` at the auditor's home: its exit status, output and errors.
        func audit(_ arguments: [String]) throws -> (status: Int32, out: String, err: String) {
            let ward = try auditor.start(arguments)
            ward.closeInput()
            let status = try ward.waitForExit(timeout: .seconds(30))
            return (status, ward.standardOutput, ward.standardError)
        }

        func chain(of home: BatchHome) throws -> String {
            try String(contentsOfFile: home.home + "/audit.jsonl.chain", encoding: .utf8)
                .trimmingCharacters(in: .newlines)
        }

        func sql(_ text: String) throws -> String { try server.psql(text, database: database) }
    }

    @Test func twoHosts_recordsOfBoth_areShownAndVerified_andAnAlteredRow_failsNamingHostAndSeq() throws {
        let site = try Site()
        let shown = try site.batch(
            site.hostA,
            ["open PG1", "note Dose 50 mg.", "correct 1 Dose 5 mg, not 50.", "show notes"]
        )
        #expect(shown.contains("Correction of note 1 added to PG1"))
        #expect(shown.contains("2 corrects 1") && shown.contains("1 corrected by 2"), "\(shown)")
        #expect(shown.contains("Dose 50 mg.") && shown.contains("Dose 5 mg, not 50."))
        #expect(
            try site.sql("SELECT id, corrects, text FROM note ORDER BY id")
                == "1||Dose 50 mg.\n2|1|Dose 5 mg, not 50.\n"
        )

        // While the database refuses the second host's records, they stay in its file (the
        // primary) and its session goes on; later sessions' reach the database, and verify
        // names what it lacks.
        try site.sql("REVOKE INSERT ON audit_record FROM \(site.session)")
        _ = try site.batch(site.hostB, ["find lovelace"])
        let chainB = try site.chain(of: site.hostB)
        #expect(try site.sql("SELECT count(*) FROM audit_record WHERE chain = '\(chainB)'") == "0\n")
        #expect(try site.hostB.auditRecords().contains { $0["kind"] as? String == "sign-on" })
        try site.sql("GRANT INSERT ON audit_record TO \(site.session)")
        _ = try site.batch(site.hostB, ["find lovelace"])
        #expect(try site.sql("SELECT count(*) > 0 FROM audit_record WHERE chain = '\(chainB)'") == "t\n")

        let chainA = try site.chain(of: site.hostA)
        #expect(chainA != chainB)
        let json = try site.audit(["audit", "show", "--all-hosts", "--format", "json", "--kind", "sign-on"])
        #expect(json.status == 0, "\(json.err)")
        let signOns = json.out.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        // Host A's one session and host B's second: the first is in B's file only.
        #expect(Set(signOns.compactMap { $0["session"] as? String }).count == 2, "\(json.out)")
        let table = try site.audit(["audit", "show", "--all-hosts"])
        #expect(table.status == 0 && table.out.hasPrefix("HOST"), "\(table.out)")

        let verified = try site.audit(["audit", "verify", "--all-hosts"])
        #expect(verified.status == 0, "\(verified.out)\(verified.err)")
        #expect(
            verified.out.contains("chain \(chainA.prefix(8))") && verified.out.contains("chain \(chainB.prefix(8))")
        )
        #expect(verified.out.contains("warning: host ") && verified.out.contains("are not in the database"))
        #expect(!verified.out.contains("NOT intact"))

        // The owner can change a row; verify says which.
        let seq = try site.sql(
            "SELECT min(seq) FROM audit_record WHERE chain = '\(chainA)' AND line LIKE '%\"user\":\"demo\"%'"
        ).trimmingCharacters(in: .newlines)
        let host = try site.sql("SELECT DISTINCT host FROM audit_record WHERE chain = '\(chainA)'")
            .trimmingCharacters(in: .newlines)
        try site.sql(
            "UPDATE audit_record SET line = replace(line, '\"user\":\"demo\"', '\"user\":\"eve\"') "
                + "WHERE chain = '\(chainA)' AND seq = \(seq)"
        )
        let altered = try site.audit(["audit", "verify", "--all-hosts"])
        #expect(altered.status == 65)
        #expect(
            altered.err.contains(
                "record \(seq) of host \(host), chain \(chainA.prefix(8)) was changed in the database"
            ),
            "\(altered.err)"
        )
    }

    @Test func aDatabaseSlowToTakeRecords_holdsUpNoCommand_andGetsThemAllByTheEnd() throws {
        // The statement timeout is far past the test's waits: a session that waited for the
        // database would show nothing while the inserts are held.
        let site = try Site(records: "statement-timeout = \"120s\"\n")
        try site.sql(
            """
            CREATE TABLE held (held boolean NOT NULL);
            INSERT INTO held VALUES (true);
            CREATE FUNCTION hold_audit_record() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER AS $$
            BEGIN
                WHILE (SELECT held FROM held) LOOP PERFORM pg_sleep(0.02); END LOOP;  -- polls the flag
                RETURN NEW;
            END $$;
            CREATE TRIGGER hold BEFORE INSERT ON audit_record FOR EACH ROW EXECUTE FUNCTION hold_audit_record();
            """
        )
        let ward = try site.hostA.start(["--batch", "-", "--user", "demo", "--password-file", site.hostA.passwordFile])
        // The sign-on's record is on its way and held at the server.
        try eventually("the sign-on's record held at the server", timeout: .seconds(20)) {
            (try? site.sql(
                "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'ward-audit' "
                    + "AND state = 'active' AND query LIKE 'INSERT INTO audit_record%'"
            )) == "1\n"
        }
        ward.send("find lovelace")
        try ward.waitFor("Lovelace, Ada")
        ward.send("open PG1")
        try ward.waitFor("Opened PG1")
        #expect(try site.sql("SELECT count(*) FROM audit_record") == "0\n")

        try site.sql("UPDATE held SET held = false")
        ward.closeInput()
        #expect(try ward.waitForExit(timeout: .seconds(30)) == 0, "\(ward.standardError)")
        #expect(!ward.standardError.contains("left in the file only"), "\(ward.standardError)")
        // Every record of the file, in order, is in the database.
        let file = try site.hostA.auditRecords().compactMap { $0["seq"] as? Int }
        let chain = try site.chain(of: site.hostA)
        let rows = try site.sql("SELECT seq FROM audit_record WHERE chain = '\(chain)' ORDER BY seq")
        #expect(rows.split(separator: "\n").compactMap { Int($0) } == file.suffix(rows.split(separator: "\n").count))
        #expect(rows.split(separator: "\n").count >= 3, "\(rows)")
    }

    @Test func configCheck_ofThePostgresSite_reportsAMissingGrantAndAMissingMigration() throws {
        let site = try Site()
        let good = try site.hostA.start(["config", "check"])
        #expect(try good.waitForExit(timeout: .seconds(30)) == 0, "\(good.standardError)")
        #expect(good.standardOutput.contains("schema up to date"), "\(good.standardOutput)")
        #expect(good.standardOutput.contains("holds what sessions need, and nothing more"))

        try site.sql("REVOKE INSERT ON audit_record FROM \(site.session)")
        let grant = try site.hostA.start(["config", "check", "--format", "json"])
        #expect(try grant.waitForExit(timeout: .seconds(30)) == 78)
        let problems = grant.standardOutput.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(
            problems.contains {
                $0["severity"] as? String == "error"
                    && ($0["message"] as? String)?.contains("may not add rows to audit_record") == true
            },
            "\(grant.standardOutput)"
        )

        try site.sql("GRANT INSERT ON audit_record TO \(site.session)")
        try site.sql("DELETE FROM ward_migrations WHERE identifier = '11-note-corrections'")
        let migration = try site.hostA.start(["config", "check"])
        #expect(try migration.waitForExit(timeout: .seconds(30)) == 78)
        #expect(migration.standardError.contains("11-note-corrections"), "\(migration.standardError)")

        // A server that is not there is a problem named, not a crash.
        try Self.site(
            url: "postgresql://ward@127.0.0.1:\(PostgresServer.freePort())/ward",
            extra: "tls = \"disable\"\nconnect-timeout = \"1s\"\n"
        )
        .write(toFile: site.hostB.site, atomically: true, encoding: .utf8)
        let gone = try site.hostB.start(["config", "check"])
        #expect(try gone.waitForExit(timeout: .seconds(30)) == 78)
        #expect(gone.standardError.contains("cannot reach the records server 127.0.0.1:"), "\(gone.standardError)")
    }
}
