import Foundation
import PostgresTestSupport
import Testing

@testable import WardRecords

/// The site's audit trail, append-only notes and `ward config check`'s look at the database,
/// against a real PostgreSQL 15: the owner migrates, the session role only adds rows.
@Suite struct PostgresAuditTrailTests {
    static func row(_ chain: String, _ seq: Int64, host: String = "h1") -> PostgresAuditTrail.Row {
        PostgresAuditTrail.Row(chain: chain, seq: seq, host: host, hash: String(repeating: "a", count: 64), line: "{}")
    }

    @Test func theSessionRole_addsAuditRecords_andMayNotReadChangeOrRemoveThem() throws {
        let server = try PostgresServer.shared()
        let (database, owner, session) = try PostgresSessionRoleTests.migrated(server)
        let sessions = PostgresAuditTrail(settings: PostgresSessionRoleTests.settings(server, database, user: session))
        try sessions.append([Self.row("c1", 1), Self.row("c1", 2), Self.row("c2", 1, host: "h2")])
        // A row sent again (its reply lost) is kept once, not refused.
        try sessions.append([Self.row("c1", 2), Self.row("c1", 3)])
        #expect(throws: StoreError.self) { try sessions.all() }

        let auditor = PostgresAuditTrail(settings: PostgresSessionRoleTests.settings(server, database, user: owner))
        #expect(
            try auditor.all().map { "\($0.host) \($0.chain) \($0.seq)" } == [
                "h1 c1 1", "h1 c1 2", "h1 c1 3", "h2 c2 1",
            ]
        )

        let store = try PostgresRecordStore(
            settings: PostgresSessionRoleTests.settings(server, database, user: session)
        )
        for statement in [
            "UPDATE audit_record SET line = 'x'", "DELETE FROM audit_record", "TRUNCATE audit_record",
            "SELECT count(*) FROM audit_record", "UPDATE note SET text = 'changed'", "DELETE FROM note",
            "UPDATE note SET corrects = NULL",
        ] {
            let error = try #require(throws: StoreError.self, "\(statement)") {
                try store.rows("\(unescaped: statement)")
            }
            #expect("\(error)".contains("42501"), "\(statement): \(error)")
        }
        #expect(try server.psql("SELECT count(*) FROM audit_record", database: database) == "4\n")
    }

    @Test func aCorrection_namesANoteOfTheSameChart_andLeavesItAsItWas() throws {
        let server = try PostgresServer.shared()
        let (database, _, session) = try PostgresSessionRoleTests.migrated(server)
        try server.psql(
            """
            INSERT INTO patient (id, mrn, given, family, birth_date, sex, phone, address)
                VALUES (2, 'L2', 'Kim', 'Rowe', '1990-01-01', 'female', '', '');
            INSERT INTO note (patient_id, author, time, text) VALUES (2, 'bob', 0, 'of another chart');
            """,
            database: database
        )
        let store = try PostgresRecordStore(
            settings: PostgresSessionRoleTests.settings(server, database, user: session)
        )
        let before = try #require(store.chart(mrn: "L1").notes.first)
        let correction = try store.addNote(
            mrn: "l1",
            author: "alice",
            text: "corrected",
            at: Date(timeIntervalSince1970: 60),
            corrects: before.id
        )
        #expect(correction.corrects == before.id && correction.id != nil)
        #expect(try store.chart(mrn: "L1").notes == [before, correction])
        let another = try #require(store.chart(mrn: "L2").notes.first?.id)
        for number in [another, 999_999] {
            #expect(throws: StoreError.noSuchNote) {
                try store.addNote(mrn: "L1", author: "alice", text: "x", at: Date(), corrects: number)
            }
        }
        #expect(throws: StoreError.noSuchPatient) {
            try store.addNote(mrn: "NOPE", author: "alice", text: "x", at: Date(), corrects: before.id)
        }
        #expect(
            try server.psql("SELECT text FROM note WHERE patient_id = 1 ORDER BY id", database: database)
                == "before\ncorrected\n"
        )
    }

    @Test func theSiteCheck_findsAMissingGrant_aMissingMigration_andARightTooMany() throws {
        let server = try PostgresServer.shared()
        let (database, owner, session) = try PostgresSessionRoleTests.migrated(server)
        let settings = PostgresSessionRoleTests.settings(server, database, user: session)
        let good = try PostgresSiteCheck.run(settings: settings)
        #expect(good.schemaProblem == nil && good.privilegeProblem == nil, "\(good)")

        try server.psql("REVOKE INSERT ON audit_record FROM \(session)", database: database)
        let missing = try PostgresSiteCheck.run(settings: settings)
        #expect(missing.privilegeProblem?.contains("may not add rows to audit_record") == true, "\(missing)")
        #expect(!missing.privilegesExceed)

        try server.psql(
            "GRANT INSERT ON audit_record TO \(session); GRANT UPDATE ON note TO \(session)",
            database: database
        )
        let excess = try PostgresSiteCheck.run(settings: settings)
        #expect(excess.privilegeProblem?.contains("change or read note") == true, "\(excess)")
        #expect(excess.privilegesExceed)

        try server.psql("DELETE FROM ward_migrations WHERE identifier = '11-note-corrections'", database: database)
        let outdated = try PostgresSiteCheck.run(
            settings: PostgresSessionRoleTests.settings(server, database, user: owner)
        )
        #expect(outdated.schemaProblem?.contains("11-note-corrections") == true, "\(outdated)")
    }

    @Test func theSiteCheck_ofAServerThatIsNotThere_throwsUnavailable() throws {
        let settings = PostgresSettings(
            endpoint: .tcp(host: "127.0.0.1", port: PostgresServer.freePort()),
            user: "ward",
            database: "ward",
            tls: .disable,
            connectTimeout: .seconds(1),
            statementTimeout: .seconds(2)
        )
        let error = try #require(throws: StoreError.self) { try PostgresSiteCheck.run(settings: settings) }
        guard case .unavailable = error else {
            Issue.record("\(error)")
            return
        }
    }
}
