import Foundation
import PostgresTestSupport
import Testing

/// The real binary with a `url` of two servers, a primary and its streaming standby (made with
/// `pg_basebackup -R`, both started by the test): a running session goes on after the primary
/// dies and the standby is promoted; `tls = "disable"` toward another host is refused at load.
@Suite(.serialized) struct PostgresFailoverEndToEndTests {
    static func site(url: String, extra: String = "") -> String {
        "[[plugin]]\nname = \"audit-log\"\n\n[records]\nbackend = \"postgresql\"\nurl = \"\(url)\"\n\(extra)"
            + TerminalHarness.unguarded
    }

    /// `%2Fdir:port`: a server's socket as a url's host.
    static func host(_ server: PostgresServer) -> String {
        server.socketDirectory.replacingOccurrences(of: "/", with: "%2F") + ":\(server.port)"
    }

    static func notes(_ server: PostgresServer, _ database: String) throws -> String {
        try server.psql("SELECT string_agg(text, '|' ORDER BY id) FROM note", database: database)
    }

    /// A primary whose database `ward db migrate` has made, holding the patient PG1, and its
    /// standby, which has replayed it all.
    static func pair() throws -> (primary: PostgresServer, standby: PostgresServer, database: String) {
        let primary = try PostgresServer()
        let database = try primary.createDatabase("records")
        try PostgresRecordsEndToEndTests.migrate(
            site: Self.site(url: "postgresql://\(primary.user)@\(Self.host(primary))/\(database)")
        )
        try primary.psql(
            """
            INSERT INTO patient (id, mrn, given, family, birth_date, sex, phone, address)
                VALUES (1, 'PG1', 'Ada', 'Lovelace', '1815-12-10', 'female', '', '');
            INSERT INTO patient_name_token (token, patient_id) VALUES ('ada', 1), ('lovelace', 1);
            """,
            database: database
        )
        let standby = try PostgresServer(standbyOf: primary)
        try eventually("the standby to have the patient", timeout: .seconds(30)) {
            (try? standby.psql("SELECT count(*) FROM patient", database: database)) == "1\n"
        }
        return (primary, standby, database)
    }

    /// The url naming the primary, then the standby.
    static func url(_ primary: PostgresServer, _ standby: PostgresServer, _ database: String) -> String {
        "postgresql://\(primary.user)@\(Self.host(primary)),\(Self.host(standby))/\(database)"
    }

    @Test func aRunningSession_goesOnAfterTheStandbyIsPromoted_andItsNextNoteIsStored() throws {
        let (primary, standby, database) = try Self.pair()
        defer {
            standby.stop()
            primary.stop()
        }
        let h = try BatchHome(patients: 3)
        try Self.site(url: Self.url(primary, standby, database)).write(
            toFile: h.site,
            atomically: true,
            encoding: .utf8
        )
        try h.shareUsers(primary, database)
        let p = try h.start([
            "--batch", "-", "--user", "demo", "--password-file", h.passwordFile, "--on-error", "continue",
        ])
        p.send("open PG1", "note Before the failover.")
        try eventually("the first note on the standby", timeout: .seconds(30)) {
            (try? Self.notes(standby, database)) == "Before the failover.\n"
        }

        primary.stop()
        try standby.promote()
        p.send("note Just after it.", "note After it.", "show notes")
        p.closeInput()
        let status = try p.waitForExit(timeout: .seconds(60))
        // At most the note that met the dead connection is lost, and then it says so; the next
        // is stored on the promoted standby.
        let stored = try Self.notes(standby, database)
        if status == 0 {
            #expect(stored == "Before the failover.|Just after it.|After it.\n")
        } else {
            #expect(stored == "Before the failover.|After it.\n")
            let lost: String =
                "<stdin>:3: records database error: the connection to the records server "
                + "\(primary.socketDirectory)/.s.PGSQL.\(primary.port) was lost during this command, "
                + "which may not have been done"
            #expect(p.standardError.contains(lost), "\(p.standardError)")
        }
        #expect(p.standardOutput.contains("After it."))
        #expect(!p.standardError.contains("SQLSTATE") && !p.standardError.contains("PSQLError"))
    }

    @Test func atTheTerminal_theSessionGoesOnAfterThePromotion_andItsNextButOneNoteIsStored() throws {
        let (primary, standby, database) = try Self.pair()
        defer {
            standby.stop()
            primary.stop()
        }
        let t = try TerminalHarness(site: Self.site(url: Self.url(primary, standby, database)))
        try t.signOn()
        try t.enter("open PG1")
        try t.waitFor("ward [Lovelace PG1]>")
        try t.enter("note Before the failover.")
        try t.waitFor("Note added to PG1")
        try eventually("the first note on the standby", timeout: .seconds(30)) {
            (try? Self.notes(standby, database)) == "Before the failover.\n"
        }

        primary.stop()
        try standby.promote()
        try t.enter("note Just after it.")
        try t.enter("note After it.")
        try eventually("the next-but-one note on the promoted standby", timeout: .seconds(30)) {
            (try? Self.notes(standby, database))?.hasSuffix("|After it.\n") == true
        }
        let screen = try t.screenAndScrollback()
        // The note in flight is stored, or said to be lost; nothing is in a driver's words.
        #expect(
            try Self.notes(standby, database) == "Before the failover.|Just after it.|After it.\n"
                || screen.contains("was lost during this command, which may not have been done"),
            "\(screen)"
        )
        #expect(!screen.contains("SQLSTATE") && !screen.contains("PSQLError"))
        try t.press("C-d")
        #expect(try t.waitForExit() == 0)
    }

    @Test func tlsDisable_towardAnotherHost_isRefusedAtLoad_namingTheLineAndTheHost() throws {
        let h = try BatchHome(patients: 3)
        try Self.site(
            url: "postgresql://ward@127.0.0.1:5432,records.example.org:5432/ward",
            extra: "tls = \"disable\"\n"
        ).write(toFile: h.site, atomically: true, encoding: .utf8)
        for arguments in [
            ["config", "check"], ["-c", "find lovelace", "--user", "demo", "--password-file", h.passwordFile],
        ] {
            let ward = try h.start(arguments)
            ward.closeInput()
            #expect(try ward.waitForExit(timeout: .seconds(30)) == 78, "\(arguments)")
            let refusal: String =
                "\(h.site):7: tls = \"disable\" would send the password and the records in the clear to "
                + "records.example.org:5432, which is not this host"
            #expect(ward.standardError.contains(refusal), "\(ward.standardError)")
        }
    }
}
