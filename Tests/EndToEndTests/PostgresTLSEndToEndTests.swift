import Foundation
import PostgresTestSupport
import Testing

/// The real binary with `tls = "require"` and `ca-file`, against a real PostgreSQL 15 that
/// offers TLS with a certificate made at test time: migrated and read over TLS, as the server
/// itself reports (`pg_stat_ssl`), and refused when the certificate is not the CA's.
@Suite(.serialized) struct PostgresTLSEndToEndTests {
    /// Whoever may write the CA file chooses which server Ward trusts: refused with the site
    /// file's line and the path, exit 78, before any connection (no server runs here).
    @Test func aCAFileOthersMayWrite_stopsWard_withExit78_namingLineAndPath() throws {
        let h = try BatchHome(patients: 1)
        let caFile = h.directory.appendingPathComponent("records-ca.pem").path
        try "-----BEGIN CERTIFICATE-----\n".write(toFile: caFile, atomically: true, encoding: .utf8)
        chmod(caFile, 0o666)
        let site =
            "[[plugin]]\nname = \"audit-log\"\n\n[records]\nbackend = \"postgresql\"\n"
            + "url = \"postgresql://ward@localhost:5432/records\"\ntls = \"require\"\nca-file = \"\(caFile)\"\n"
            + TerminalHarness.unguarded
        try site.write(toFile: h.site, atomically: true, encoding: .utf8)
        for arguments in [["db", "migrate"], ["-c", "find x", "--user", "demo", "--password-file", h.passwordFile]] {
            let ward = try h.start(arguments)
            #expect(try ward.waitForExit(timeout: .seconds(30)) == 78, "\(ward.standardError)")
            #expect(ward.standardError.contains("site.toml:8: ca-file \"\(caFile)\""), "\(ward.standardError)")
            #expect(ward.standardError.contains("chmod go-w"))
        }
    }

    @Test func requireWithACAFile_migratesAndReadsOverTLS_andAnotherCAIsRefused() throws {
        let server = try PostgresServer.sharedTLS()
        let database = try server.createDatabase("records")
        let h = try BatchHome(patients: 3)
        let passwordFile = h.directory.appendingPathComponent("records.password").path
        try h.writeSecret(server.password + "\n", to: passwordFile)
        let site = { (caFile: String) in
            "[[plugin]]\nname = \"audit-log\"\n\n[records]\nbackend = \"postgresql\"\n"
                + "url = \"postgresql://\(server.user)@localhost:\(server.port)/\(database)\"\n"
                + "password-file = \"\(passwordFile)\"\ntls = \"require\"\nca-file = \"\(caFile)\"\n"
                + TerminalHarness.unguarded
        }
        try site(server.caFile).write(toFile: h.site, atomically: true, encoding: .utf8)

        let migrate = try h.start(["db", "migrate"])
        #expect(try migrate.waitForExit(timeout: .seconds(30)) == 0, "\(migrate.standardError)")
        try h.shareUsers(server, database)
        try server.psql(
            """
            INSERT INTO patient (id, mrn, given, family, birth_date, sex, phone, address)
                VALUES (1, 'T1', 'Tess', 'Layer', '1990-01-01', 'female', '', '');
            INSERT INTO patient_name_token (token, patient_id) VALUES ('tess', 1), ('layer', 1);
            """,
            database: database
        )
        let session = try h.start(["--batch", "-", "--user", "demo", "--password-file", h.passwordFile])
        session.send("find layer")
        try session.waitFor("Layer, Tess")
        #expect(
            try server.psql(
                "SELECT s.ssl, s.version LIKE 'TLSv1.%' FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid) "
                    + "WHERE a.application_name = 'ward' AND a.datname = '\(database)'"
            ) == "t|t\n"
        )
        session.closeInput()
        #expect(try session.waitForExit(timeout: .seconds(30)) == 0, "\(session.standardError)")

        // A CA that did not sign the server's certificate: stopped before sign-on, exit 69.
        let other = h.directory.appendingPathComponent("other-ca").path
        try PostgresServer.makeCA(at: other)
        try site(other + ".crt").write(toFile: h.site, atomically: true, encoding: .utf8)
        let refused = try h.start(["-c", "find layer", "--user", "demo", "--password-file", h.passwordFile])
        refused.closeInput()
        #expect(try refused.waitForExit(timeout: .seconds(30)) == 69)
        #expect(
            refused.standardError
                == "ward: cannot reach the records server localhost:\(server.port): the server's TLS certificate was not accepted\n"
        )
        #expect(refused.standardOutput.isEmpty)
    }
}
