import Foundation
import Glibc
import PostgresTestSupport
import Testing
import WardCore

@testable import WardRecords

/// A `url` of several hosts against a real primary and its streaming standby (`pg_basebackup
/// -R`), both started by the test: the standby is passed over for writes, a read-only refusal
/// names the server, and a session outlives its primary once the standby is promoted.
///
/// Each test starts servers of its own: it stops one of them, or promotes one.
@Suite(.serialized) struct PostgresFailoverTests {
    /// A primary, a standby following it, and a migrated database holding one patient, `F1`, that
    /// the standby has replayed.
    static func pair() throws -> (primary: PostgresServer, standby: PostgresServer, database: String) {
        let primary = try PostgresServer()
        let database = try PostgresRecordStoreTests.migratedDatabase(primary, "failover")
        try primary.psql(
            """
            INSERT INTO patient (id, mrn, given, family, birth_date, sex, phone, address)
                VALUES (1, 'F1', 'Fay', 'Lover', '1970-01-01', 'female', '', '');
            INSERT INTO patient_name_token (token, patient_id) VALUES ('fay', 1), ('lover', 1);
            """,
            database: database
        )
        let standby = try PostgresServer(standbyOf: primary)
        try waitUntil("the standby has the patient") {
            (try? standby.psql("SELECT count(*) FROM patient", database: database)) == "1\n"
        }
        return (primary, standby, database)
    }

    /// Polls `condition` until it holds, failing after `limit`: replication and shutdown are
    /// observed, never waited for by the clock.
    static func waitUntil(
        _ what: String,
        limit: Duration = .seconds(30),
        _ condition: () throws -> Bool
    ) throws {
        guard try held(within: limit, condition) else {
            Issue.record("timed out waiting until \(what)")
            throw CancellationError()
        }
    }

    static func socket(_ server: PostgresServer) -> PostgresSettings.Endpoint {
        .socket(directory: server.socketDirectory, port: server.port)
    }

    static func settings(
        _ servers: [PostgresServer],
        _ database: String,
        attrs: RecordsPolicy.TargetSessionAttrs = .readWrite
    ) -> PostgresSettings {
        PostgresSettings(
            endpoints: servers.map(socket),
            targetSessionAttrs: attrs,
            user: servers[0].user,
            database: database,
            tls: .disable,
            connectTimeout: .seconds(3),
            statementTimeout: .seconds(10)
        )
    }

    static func notes(_ server: PostgresServer, _ database: String) throws -> String {
        try server.psql("SELECT string_agg(text, ',' ORDER BY id) FROM note", database: database)
    }

    @Test func readWrite_passesOverTheStandby_andAnyReadsFromIt_refusingNotesByName() throws {
        let (primary, standby, database) = try Self.pair()
        defer {
            standby.stop()
            primary.stop()
        }
        let standbyName = Self.socket(standby).description

        // The standby first in the list: read-write goes on to the primary.
        let writer = try PostgresRecordStore(settings: Self.settings([standby, primary], database))
        #expect(writer.link.server == Self.socket(primary).description)
        _ = try writer.addNote(mrn: "F1", author: "alice", text: "on the primary", at: Date())
        writer.close()

        // `any` takes the standby: it reads, and a note is refused in words, naming it.
        let reader = try PostgresRecordStore(settings: Self.settings([standby, primary], database, attrs: .any))
        #expect(reader.link.server == standbyName)
        #expect(try reader.find("lover").matches.map(\.mrn) == ["F1"])
        let refusal = try #require(throws: StoreError.self) {
            try reader.addNote(mrn: "F1", author: "alice", text: "on the standby", at: Date())
        }
        let refusalText: String =
            "records database error: the records server \(standbyName) is read-only (a standby, or "
            + "default_transaction_read_only is on), so nothing was stored; target-session-attrs = \"any\" "
            + "lets Ward read from a standby: set it to \"read-write\" to store notes"
        #expect("\(refusal)" == refusalText)
        #expect(!"\(refusal)".contains("SQLSTATE"))
        #expect(try reader.patientCount() == 1)
        reader.close()

        // The standby alone will not do for read-write: said, naming it, exit 69.
        let alone = try #require(throws: StoreError.self) {
            try PostgresRecordStore(settings: Self.settings([standby], database))
        }
        let aloneText: String =
            "cannot reach the records server \(standbyName): it is read-only (a standby, or "
            + "default_transaction_read_only is on) and target-session-attrs is \"read-write\""
        #expect("\(alone)" == aloneText)
        #expect(alone.exitStatus.rawValue == 69)
    }

    @Test func aSession_goesOnAfterTheStandbyIsPromoted_losingOnlyTheCommandInFlight() throws {
        let (primary, standby, database) = try Self.pair()
        defer {
            standby.stop()
            primary.stop()
        }
        let store = try PostgresRecordStore(settings: Self.settings([primary, standby], database))
        #expect(store.link.server == Self.socket(primary).description)
        _ = try store.addNote(mrn: "F1", author: "alice", text: "first", at: Date())
        try Self.waitUntil("the standby has the first note") { try Self.notes(standby, database) == "first\n" }

        // The primary dies under a statement that is running: that command fails, saying so.
        let stopper = Thread {
            try? Self.waitUntil("the statement runs") {
                (try? primary.psql(
                    "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'ward' AND query LIKE '%pg_sleep%'"
                )) == "1\n"
            }
            primary.stop()
        }
        stopper.start()
        let lost = try #require(throws: StoreError.self) { try store.rows("SELECT pg_sleep(8)") }
        let primaryName = Self.socket(primary).description
        let servers = Self.settings([primary, standby], database).serverList
        let lostText: String =
            "records database error: the connection to the records server \(primaryName) was lost during "
            + "this command, which may not have been done; the next command connects again, to the first of "
            + "\(servers) that will do"
        #expect("\(lost)" == lostText)

        try Self.waitUntil("the primary is stopped and gone") {
            !FileManager.default.fileExists(atPath: primary.directory)
        }
        // Until the standby is promoted no server will take a note, and the session says why.
        let none = try #require(throws: StoreError.self) {
            try store.addNote(mrn: "F1", author: "alice", text: "refused", at: Date())
        }
        #expect("\(none)".contains("it is read-only"))
        #expect(
            "\(none)".hasPrefix(
                "cannot reach the records server \(servers): none will do (\(primaryName): no server socket there; "
            )
        )

        try standby.promote()
        _ = try store.addNote(mrn: "F1", author: "alice", text: "second", at: Date())
        #expect(store.link.server == Self.socket(standby).description)
        #expect(try Self.notes(standby, database) == "first,second\n")
        #expect(try store.chart(mrn: "F1").patient.family == "Lover")
    }
}
