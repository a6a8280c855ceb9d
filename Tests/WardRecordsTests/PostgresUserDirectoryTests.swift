import Dispatch
import PostgresTestSupport
import Synchronization
import Testing
import WardCore

@testable import WardRecords

/// The site's users on PostgreSQL: two directories over one database stand for two hosts.
@Suite struct PostgresUserDirectoryTests {
    /// A directory over `database` as `user` (the server's superuser unless named): one host.
    static func host(
        _ server: PostgresServer,
        _ database: String,
        user: String? = nil,
        maxFailedAttempts: Int = 5
    ) throws -> PostgresUserDirectory {
        var settings = PostgresRecordStoreTests.settings(server, database: database)
        if let user { settings.user = user }
        return try PostgresUserDirectory(
            settings: settings,
            lockout: LockoutPolicy(maxFailedAttempts: maxFailedAttempts, duration: .seconds(900)),
            parameters: .testing
        )
    }

    static let now: Int64 = 1_800_000_000

    @Test func aUserAddedOnOneHost_signsOnAtTheOther_andHearsOfTheFailures() throws {
        let server = try PostgresServer.shared()
        let database = try PostgresRecordStoreTests.migratedDatabase(server)
        let a = try Self.host(server, database)
        let b = try Self.host(server, database)
        try a.add(name: "alice", role: .clinician, password: Password("correct horse"))
        #expect(throws: AuthError.userExists("alice")) {
            try b.add(name: "alice", role: .clerk, password: Password("x"))
        }

        var messages: [String] = []
        #expect(throws: AuthError.wrongCredentials) {
            try a.signOn(
                name: "alice",
                password: Password("wrong"),
                tty: "/dev/pts/1",
                at: Self.now,
                messages: &messages
            )
        }
        let first = try b.signOn(
            name: "alice",
            password: Password("correct horse"),
            tty: "/dev/pts/2",
            at: Self.now + 1,
            messages: &messages
        )
        #expect(first == SignOnSummary(user: "alice", role: .clinician, previous: nil, failedAttempts: 1))
        let second = try a.signOn(
            name: "alice",
            password: Password("correct horse"),
            tty: nil,
            at: Self.now + 2,
            messages: &messages
        )
        #expect(second.previous == SignOnRecord(time: Self.now + 1, tty: "/dev/pts/2"))
        #expect(second.failedAttempts == 0)
        let listed = try b.users()
        #expect(listed.map(\.name) == ["alice"])
        #expect(listed[0].passwordHash == nil && listed[0].passwordHashWithheld && !listed[0].usesSystemPassword)
    }

    @Test func fiveWrongPasswordsOnOneHost_lockTheAccountOnTheOther_untilUnlockedThere() throws {
        let server = try PostgresServer.shared()
        let database = try PostgresRecordStoreTests.migratedDatabase(server)
        let a = try Self.host(server, database)
        let b = try Self.host(server, database)
        try a.add(name: "alice", role: .clinician, password: Password("correct horse"))
        var messages: [String] = []
        for i in 0..<5 {
            #expect(throws: AuthError.wrongCredentials) {
                try a.signOn(
                    name: "alice",
                    password: Password("guess"),
                    tty: nil,
                    at: Self.now + Int64(i),
                    messages: &messages
                )
            }
        }
        let locked = AuthError.accountLocked(user: "alice", until: Self.now + 4 + 900)
        #expect(throws: locked) {
            try b.signOn(
                name: "alice",
                password: Password("correct horse"),
                tty: nil,
                at: Self.now + 5,
                messages: &messages
            )
        }
        #expect(locked.exitStatus.rawValue == 77)
        #expect(try b.user(named: "alice")?.isLocked(at: Self.now + 5) == true)

        try b.clearLock(name: "alice")
        let summary = try a.signOn(
            name: "alice",
            password: Password("correct horse"),
            tty: nil,
            at: Self.now + 6,
            messages: &messages
        )
        #expect(summary.failedAttempts == 5)
        #expect(try b.disable(name: "alice"))
        #expect(try !b.disable(name: "alice"))
        #expect(throws: AuthError.accountDisabled(user: "alice")) {
            try a.unlock(
                name: "alice",
                password: Password("correct horse"),
                tty: nil,
                at: Self.now + 7,
                messages: &messages
            )
        }
    }

    @Test func parallelWrongPasswordsOnTwoHosts_areEachCounted() throws {
        let server = try PostgresServer.shared()
        let database = try PostgresRecordStoreTests.migratedDatabase(server)
        let hosts = try (0..<2).map { _ in try Self.host(server, database, maxFailedAttempts: 100) }
        try hosts[0].add(name: "alice", role: .clinician, password: Password("correct horse"))
        let guesses = 16
        let refused = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: guesses) { i in
            // Each guesser its own connection, as on its own host.
            guard let host = try? Self.host(server, database, maxFailedAttempts: 100) else { return }
            defer { host.close() }
            var messages: [String] = []
            do throws(AuthError) {
                _ = try host.signOn(
                    name: "alice",
                    password: Password("guess"),
                    tty: nil,
                    at: Self.now,
                    messages: &messages
                )
            } catch .wrongCredentials {
                refused.withLock { $0 += 1 }
            } catch {}
        }
        #expect(refused.withLock { $0 } == guesses)
        let alice = try #require(try hosts[1].user(named: "alice"))
        #expect(alice.failedAttempts == guesses)
        #expect(alice.consecutiveFailures == guesses)
    }

    @Test func anUnknownName_locksAsAKnownOneDoes_andIsNotStored() throws {
        let server = try PostgresServer.shared()
        let database = try PostgresRecordStoreTests.migratedDatabase(server)
        let a = try Self.host(server, database)
        let b = try Self.host(server, database)
        var messages: [String] = []
        for i in 0..<5 {
            #expect(throws: AuthError.wrongCredentials) {
                try a.signOn(
                    name: "mallory",
                    password: Password("guess"),
                    tty: nil,
                    at: Self.now + Int64(i),
                    messages: &messages
                )
            }
        }
        #expect(throws: AuthError.accountLocked(user: "mallory", until: Self.now + 4 + 900)) {
            try b.signOn(name: "mallory", password: Password("guess"), tty: nil, at: Self.now + 5, messages: &messages)
        }
        #expect(try server.psql("SELECT count(*) FROM ward_unknown_name", database: database) == "1\n")
        #expect(try server.psql("SELECT count(*) FROM ward_user", database: database) == "0\n")
    }

    @Test func theSessionRole_signsUsersOn_butCannotReadHashesNorChangeUsers() throws {
        let server = try PostgresServer.shared()
        let (database, owner, session) = try PostgresSessionRoleTests.migrated(server)
        let admin = try Self.host(server, database, user: owner)
        try admin.add(name: "alice", role: .clinician, password: Password("correct horse"))
        try admin.addSystemUser(name: "pat", role: .clerk)

        let host = try Self.host(server, database, user: session)
        var messages: [String] = []
        let summary = try host.signOn(
            name: "alice",
            password: Password("correct horse"),
            tty: nil,
            at: Self.now,
            messages: &messages
        )
        #expect(summary.role == .clinician)
        #expect(try host.users().map { "\($0.name) \($0.usesSystemPassword)" } == ["alice false", "pat true"])
        #expect(throws: AuthError.directoryReadOnly(databaseUser: session, server: host.link.server)) {
            try host.add(name: "eve", role: .auditor, password: Password("x"))
        }
        #expect(throws: AuthError.directoryReadOnly(databaseUser: session, server: host.link.server)) {
            try host.clearLock(name: "alice")
        }

        let store = try PostgresRecordStore(
            settings: PostgresSessionRoleTests.settings(server, database, user: session)
        )
        let refused = [
            "UPDATE ward_user SET locked_until = NULL",
            "UPDATE ward_user SET role = 'auditor' WHERE name = 'alice'",
            "INSERT INTO ward_user (name, role) VALUES ('eve', 'auditor')",
            "DELETE FROM ward_user",
            "SELECT password_hash FROM ward_user",
            "SELECT * FROM ward_user",
            "SELECT key FROM ward_unknown_name_key",
            "DELETE FROM ward_unknown_name",
        ]
        for statement in refused {
            let error = try #require(throws: StoreError.self, "\(statement)") {
                try store.rows("\(unescaped: statement)")
            }
            #expect("\(error)".contains("42501"), "\(statement): \(error)")
        }
        #expect(try PostgresSchema.sessionPrivilegeProblem(store.link, role: session) == nil)
    }

    /// The session's connections to `database` named "ward", as `ward db migrate` counts them,
    /// once they are `expected` (a connection is closed without Ward waiting for it), or as they
    /// are after 5 s.
    static func wardConnections(_ server: PostgresServer, _ database: String, awaiting expected: Int) throws -> Int {
        var count = -1
        _ = try held(within: .seconds(5)) {
            let counted = try server.psql(
                "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'ward' AND datname = current_database()",
                database: database
            )
            count = Int(counted.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
            return count == expected
        }
        return count
    }

    /// Alice signs on, or unlocks, with `password` at `time`.
    @discardableResult
    static func alice(
        _ users: PostgresUserDirectory,
        unlocking: Bool = false,
        password: StaticString = "correct horse",
        at time: Int64
    ) throws -> Role {
        var messages: [String] = []
        let typed = Password(password)
        guard unlocking else {
            return try users.signOn(name: "alice", password: typed, tty: nil, at: time, messages: &messages).role
        }
        return try users.unlock(name: "alice", password: typed, tty: nil, at: time, messages: &messages).role
    }

    @Test func aSessionsRecordsAndPasswords_shareOneConnection_whichALockScreenDoesNotHold() throws {
        let server = try PostgresServer.shared()
        let database = try PostgresRecordStoreTests.migratedDatabase(server, "oneconnection")
        try Self.host(server, database).add(name: "alice", role: .clinician, password: Password("correct horse"))
        let users = try Self.host(server, database)
        let backend = StoreBackend.postgresql(PostgresRecordStoreTests.settings(server, database: database))
        let store = try #require(try backend.storeOpener(sharingConnectionOf: users)())
        #expect(try Self.wardConnections(server, database, awaiting: 1) == 1)

        // A wrong password closes it: nobody is in.
        #expect(throws: AuthError.wrongCredentials) { try Self.alice(users, password: "wrong", at: Self.now) }
        #expect(try Self.wardConnections(server, database, awaiting: 0) == 0)
        // The call that readies the sign-on functions when the directory connects counted nothing.
        let unknown = try server.psql("SELECT count(*) FROM ward_unknown_name", database: database)
        #expect(unknown.trimmingCharacters(in: .whitespacesAndNewlines) == "0")
        // The right one signs on over a connection the records then use, the only one.
        try Self.alice(users, at: Self.now + 1)
        try store.reopen()
        #expect(try store.patientCount() == 0)
        #expect(try Self.wardConnections(server, database, awaiting: 1) == 1)

        // The lock closes it; a wrong password at the lock screen leaves it closed; the unlock
        // opens one, which the records use again.
        store.wipe()
        #expect(try Self.wardConnections(server, database, awaiting: 0) == 0)
        #expect(throws: AuthError.wrongCredentials) {
            try Self.alice(users, unlocking: true, password: "wrong", at: Self.now + 2)
        }
        #expect(try Self.wardConnections(server, database, awaiting: 0) == 0)
        try Self.alice(users, unlocking: true, at: Self.now + 3)
        try store.reopen()
        #expect(try store.patientCount() == 0)
        #expect(try Self.wardConnections(server, database, awaiting: 1) == 1)
    }

    @Test func theConnectionMadeAtStart_servesTheFirstSignOnOnlyWhileFresh() throws {
        let server = try PostgresServer.shared()
        let database = try PostgresRecordStoreTests.migratedDatabase(server, "idletrust")
        try Self.host(server, database).add(name: "alice", role: .clinician, password: Password("correct horse"))
        let settings = PostgresRecordStoreTests.settings(server, database: database)
        for (idleTrust, sameConnection) in [(Duration.seconds(60), true), (.zero, false)] {
            let users = try PostgresUserDirectory(settings: settings, parameters: .testing, idleTrust: idleTrust)
            let store = try PostgresRecordStore(sharing: users)
            let before = try store.rows("SELECT pg_backend_pid()")[0].decode(Int32.self)
            try Self.alice(users, at: Self.now)
            let after = try store.rows("SELECT pg_backend_pid()")[0].decode(Int32.self)
            #expect((before == after) == sameConnection, "idle trust \(idleTrust)")
        }
    }

    @Test func aConnectionTheServerClosedBeforeSignOn_isReplaced_notFailedOn() throws {
        let server = try PostgresServer.shared()
        let database = try PostgresRecordStoreTests.migratedDatabase(server, "droppedatstart")
        try Self.host(server, database).add(name: "alice", role: .clinician, password: Password("correct horse"))
        let users = try Self.host(server, database)
        let store = try PostgresRecordStore(sharing: users)
        _ = try store.rows("SELECT 1")  // the connection is up, and the calls made at start are done
        _ = try server.psql(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                + "WHERE application_name = 'ward' AND datname = current_database()",
            database: database
        )
        try PostgresFailoverTests.waitUntil("the driver sees the connection closed", limit: .seconds(5)) {
            users.link.current.withLock { $0?.connection.isClosed ?? true }
        }
        #expect(try Self.alice(users, at: Self.now) == .clinician)
        try store.reopen()
        #expect(try store.patientCount() == 0)
    }
}
