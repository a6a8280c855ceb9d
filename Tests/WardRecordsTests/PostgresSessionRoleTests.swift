import Foundation
import PostgresTestSupport
import Testing

@testable import WardRecords

/// `ward db migrate --session-role`: the tables' owner migrates, and the role the site file's
/// url names is left able to read the records and add notes, and refused everything else.
@Suite struct PostgresSessionRoleTests {
    /// A database whose schema an owner role (not a superuser) has made, and a session role
    /// narrowed by the same run; their names.
    static func migrated(
        _ server: PostgresServer
    ) throws -> (
        database: String, owner: String, session: String
    ) {
        let database = try server.createDatabase("least")
        let owner = server.uniqueName("owner")
        let session = server.uniqueName("session")
        try server.psql("CREATE ROLE \(owner) LOGIN; CREATE ROLE \(session) LOGIN")
        try server.psql("GRANT CREATE ON SCHEMA public TO \(owner)", database: database)
        let settings = settings(server, database, user: owner)
        _ = try PostgresRecordStore.migrateSchema(settings: settings)
        try server.psql(
            """
            INSERT INTO patient (id, mrn, given, family, birth_date, sex, phone, address)
                VALUES (1, 'L1', 'Lee', 'Stone', '1980-01-01', 'male', '', '');
            INSERT INTO patient_name_token (token, patient_id) VALUES ('lee', 1), ('stone', 1);
            INSERT INTO note (patient_id, author, time, text) VALUES (1, 'bob', 0, 'before');
            """,
            database: database
        )
        let result = try PostgresRecordStore.migrateSchema(settings: settings, sessionRole: session)
        #expect(result.sessionRole == session)
        #expect(
            result.summary.hasSuffix(
                "; session role \(session): SELECT on the records, INSERT on note and audit_record, its own rows of ward_session, nothing else"
            )
        )
        return (database, owner, session)
    }

    static func settings(_ server: PostgresServer, _ database: String, user: String) -> PostgresSettings {
        var settings = PostgresRecordStoreTests.settings(server, database: database)
        settings.user = user
        return settings
    }

    @Test func theSessionRole_readsAndAddsNotes_andIsRefusedUpdateDeleteAndDrop() throws {
        let server = try PostgresServer.shared()
        // An older setup's grants, which running it again takes back.
        let (database, owner, session) = try Self.migrated(server)
        try server.psql("GRANT UPDATE, DELETE ON note TO \(session)", database: database)
        _ = try PostgresRecordStore.migrateSchema(
            settings: Self.settings(server, database, user: owner),
            sessionRole: session
        )

        let store = try PostgresRecordStore(settings: Self.settings(server, database, user: session))
        #expect(try store.find("stone").matches.map(\.mrn) == ["L1"])
        _ = try store.addNote(mrn: "L1", author: "alice", text: "added", at: Date())
        #expect(try store.chart(mrn: "L1").notes.map(\.text).sorted() == ["added", "before"])

        let refused = [
            "UPDATE note SET text = 'changed'",
            "DELETE FROM note",
            "DROP TABLE note",
            "TRUNCATE note",
            "ALTER TABLE note ADD COLUMN x int",
            "CREATE TABLE mine (x int)",
            "INSERT INTO patient (mrn, given, family, birth_date, sex, phone, address) VALUES ('X', '', '', '', '', '', '')",
            "UPDATE patient SET restricted = false",
            "DELETE FROM ward_migrations",
        ]
        for statement in refused {
            let error = try #require(throws: StoreError.self, "\(statement)") {
                try store.rows("\(unescaped: statement)")
            }
            #expect("\(error)".contains("lacks a privilege") && "\(error)".contains("42501"), "\(statement): \(error)")
        }
        #expect(
            try server.psql("SELECT string_agg(text, ',' ORDER BY text) FROM note", database: database)
                == "added,before\n"
        )
        #expect(try server.psql("SELECT count(*) FROM pg_tables WHERE tablename = 'note'", database: database) == "1\n")
    }

    @Test func aRoleGrantsCannotHoldBack_isRefused_changingNothing() throws {
        let server = try PostgresServer.shared()
        let (database, owner, _) = try Self.migrated(server)
        let settings = Self.settings(server, database, user: owner)
        let missing = server.uniqueName("nobody")
        #expect(
            throws: SchemaError.unsuitableSessionRole(
                role: missing,
                server: settings.endpoint.description,
                reason: "no such role; create it first (CREATE ROLE \"\(missing)\" LOGIN PASSWORD '…')"
            )
        ) { try PostgresRecordStore.migrateSchema(settings: settings, sessionRole: missing) }
        for role in [owner, server.user] {
            let error = try #require(throws: SchemaError.self, "\(role)") {
                try PostgresRecordStore.migrateSchema(settings: settings, sessionRole: role)
            }
            #expect(error.exitStatus.rawValue == 78)
            #expect("\(error)".hasPrefix("--session-role \(role): it is "), "\(error)")
            #expect("\(error)".hasSuffix("Nothing was changed."))
        }
        // A privilege PUBLIC holds is the session role's too: said, and the run rolled back.
        let session = server.uniqueName("session")
        try server.psql("CREATE ROLE \(session) LOGIN")
        try server.psql("GRANT UPDATE ON note TO PUBLIC", database: database)
        let error = try #require(throws: SchemaError.self) {
            try PostgresRecordStore.migrateSchema(settings: settings, sessionRole: session)
        }
        #expect("\(error)".contains("it may still change or read note beyond adding notes"), "\(error)")
        #expect(
            try server.psql("SELECT has_table_privilege('\(session)', 'patient', 'SELECT')", database: database)
                == "f\n"
        )
    }

    @Test func theTableLists_areEveryTableTheMigrationsMake() throws {
        let server = try PostgresServer.shared()
        let database = try PostgresRecordStoreTests.migratedDatabase(server)
        let made = try server.psql(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1",
            database: database
        )
        #expect(
            made.split(separator: "\n").map(String.init) == (PostgresSchema.tables + PostgresSiteUsers.tables).sorted()
        )
    }
}
