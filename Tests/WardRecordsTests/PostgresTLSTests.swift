import Foundation
import PostgresTestSupport
import Testing

@testable import WardRecords

/// `tls = "require"` against a real PostgreSQL 15 that offers TLS with a certificate made at
/// test time: Ward verifies the server's certificate, against the site's `ca-file` or the
/// system's trust store, and refuses one it cannot verify rather than talk in the clear.
@Suite struct PostgresTLSTests {
    /// Over loopback TCP with the superuser's password, TLS required.
    static func settings(
        _ server: PostgresServer,
        database: String,
        host: String = "127.0.0.1",
        caFile: String?
    )
        -> PostgresSettings
    {
        PostgresSettings(
            endpoint: .tcp(host: host, port: server.port),
            user: server.user,
            database: database,
            password: server.password,
            tls: .require,
            connectTimeout: .seconds(3),
            caFile: caFile
        )
    }

    /// Whether each of Ward's connections to `database` is encrypted, as the server sees it.
    /// Other tests' connections to the shared server are not this test's to count.
    static func wardConnectionsUseTLS(_ server: PostgresServer, _ database: String) throws -> String {
        try server.psql(
            "SELECT s.ssl FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid) "
                + "WHERE a.application_name = 'ward' AND a.datname = '\(database)'"
        )
    }

    @Test func require_readsRecordsOverTLS_fromAServerTheCAFileVouchesFor() throws {
        let server = try PostgresServer.sharedTLS()
        let database = try PostgresRecordStoreTests.migratedDatabase(server)
        try server.psql(
            """
            INSERT INTO patient (id, mrn, given, family, birth_date, sex, phone, address)
                VALUES (1, 'T1', 'Tess', 'Layer', '1990-01-01', 'female', '', '');
            INSERT INTO patient_name_token (token, patient_id) VALUES ('tess', 1), ('layer', 1);
            """,
            database: database
        )
        for host in ["127.0.0.1", "localhost"] {
            let store = try PostgresRecordStore(
                settings: Self.settings(server, database: database, host: host, caFile: server.caFile)
            )
            #expect(try store.find("layer").matches.map(\.mrn) == ["T1"], "\(host)")
            #expect(try store.chart(mrn: "T1").patient.family == "Layer")
            #expect(try Self.wardConnectionsUseTLS(server, database) == "t\n", "\(host)")
            store.close()
            // The server notices the close on its own time.
            _ = try held(within: .seconds(2)) { try Self.wardConnectionsUseTLS(server, database) == "" }
        }
    }

    @Test func aCertificateTheCAFileDoesNotVouchFor_isRefused_asIsOneTheSystemDoesNotTrust() throws {
        let server = try PostgresServer.sharedTLS()
        let database = try PostgresRecordStoreTests.migratedDatabase(server)
        let other = server.directory + "/" + server.uniqueName("other-ca")
        try PostgresServer.makeCA(at: other)
        for caFile in [other + ".crt", nil] {
            let error = try #require(throws: StoreError.self) {
                try PostgresRecordStore(settings: Self.settings(server, database: database, caFile: caFile))
            }
            #expect(
                "\(error)"
                    == "cannot reach the records server 127.0.0.1:\(server.port): the server's TLS certificate was not accepted",
                "\(caFile ?? "the system's trust store")"
            )
            #expect(error.exitStatus.rawValue == 69)
        }
        #expect(try Self.wardConnectionsUseTLS(server, database) == "")
    }

    @Test func aCAFileThatIsNotPEM_isNamed() throws {
        let server = try PostgresServer.sharedTLS()
        let database = try PostgresRecordStoreTests.migratedDatabase(server)
        let path = server.directory + "/" + server.uniqueName("not-a-ca") + ".pem"
        try "not a certificate\n".write(toFile: path, atomically: true, encoding: .utf8)
        for caFile in [path, server.directory + "/missing.pem"] {
            let error = try #require(throws: StoreError.self) {
                try PostgresRecordStore(settings: Self.settings(server, database: database, caFile: caFile))
            }
            #expect(
                "\(error)"
                    == "cannot reach the records server 127.0.0.1:\(server.port): the CA file \(caFile) could not be read as PEM certificates"
            )
        }
    }

    @Test func aCertificateForAnotherName_saysSo_ratherThanCannotConnect() throws {
        // A server of its own: the shared one's certificate names this host.
        let server = try PostgresServer(tls: true, certificateNames: ["DNS:records.example.org"])
        defer { server.stop() }
        let database = try PostgresRecordStoreTests.migratedDatabase(server)
        for host in ["127.0.0.1", "localhost"] {
            let error = try #require(throws: StoreError.self) {
                try PostgresRecordStore(
                    settings: Self.settings(server, database: database, host: host, caFile: server.caFile)
                )
            }
            let expected: String =
                "cannot reach the records server \(host):\(server.port): the server's TLS certificate does not "
                + "name \(host) (it is another server's, or the url should use a name the certificate gives)"
            #expect("\(error)" == expected)
            #expect(error.exitStatus.rawValue == 69)
        }
        #expect(try Self.wardConnectionsUseTLS(server, database) == "")
    }
}
