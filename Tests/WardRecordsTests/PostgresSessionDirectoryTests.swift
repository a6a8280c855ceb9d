import Foundation
import Glibc
import PostgresTestSupport
import Testing
import WardCore

@testable import WardRecords

/// The site's live sessions on a real PostgreSQL 15, as the session role: two directories stand
/// for two hosts. What one lists the other sees; a lock asked at one reaches the other's loop
/// through its descriptor; a connection that ends unlists its session, and the session lists
/// itself again when its loop hears of it.
@Suite struct PostgresSessionDirectoryTests {
    static func entry(_ id: String, user: String = "alice", state: SessionEntry.State = .signedOn) -> SessionEntry {
        SessionEntry(
            id: id,
            pid: 4242,
            processStart: 17,
            uid: 1000,
            user: user,
            role: "clinician",
            tty: "/dev/pts/3",
            peer: "192.0.2.7",
            started: "2026-11-28T03:00:00Z",
            state: state
        )
    }

    /// Whether `fd` becomes readable within `seconds`: the session's loop would wake.
    static func readable(_ fd: Int32, within seconds: Int32 = 2) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, seconds * 1000) == 1
    }

    /// Polls `probe` until it holds, up to 5 s: the server drops a lock as its backend exits.
    static func soon(_ probe: () throws -> Bool) throws -> Bool {
        try held(within: .seconds(5), probe)
    }

    @Test func aSessionListedAtOneHost_isSeenAndLockedFromAnother_andUnlistedWithItsConnection() throws {
        let server = try PostgresServer.shared()
        let (database, _, role) = try PostgresSessionRoleTests.migrated(server)
        let settings = PostgresSessionRoleTests.settings(server, database, user: role)
        let hostA = PostgresSessionDirectory(settings: settings, host: "host-a")
        let hostB = PostgresSessionDirectory(settings: settings, host: "host-b")
        let id = "00000000000000a1"
        try hostA.checkWritable()
        try hostA.write(Self.entry(id))

        var expected = Self.entry(id)
        expected.host = "host-a"
        #expect(try hostB.entries() == [expected])

        // Nothing is readable until a request comes; then the request, once.
        let wake = try #require(hostA.requestDescriptor)
        #expect(!Self.readable(wake, within: 0))
        try hostB.requestLock(of: expected, by: "carol")
        #expect(Self.readable(wake))
        #expect(hostA.takeRequest(id: id) == SessionRegistry.Request(by: "carol", action: .lock))
        #expect(hostA.takeRequest(id: id) == nil)
        #expect(hostB.hasPendingRequest(id: id))
        try hostA.write(Self.entry(id, state: .locked))
        #expect(!hostB.hasPendingRequest(id: id))
        #expect(try hostB.entries().map(\.state) == [.locked])

        // The session role changes no row but its own connection's.
        let changed = try server.psql(
            "SET ROLE \(role); WITH u AS (UPDATE ward_session SET state = 'signed-on' RETURNING 1) SELECT count(*) FROM u",
            database: database
        )
        #expect(changed.split(separator: "\n").last == "0")

        // Its connection ended by the server: unlisted, and listed again once its loop hears.
        try server.psql(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'ward-session' "
                + "AND datname = '\(database)' AND pid IN (SELECT backend_pid FROM ward_session)",
            database: database
        )
        #expect(try Self.soon { try hostB.entries().isEmpty })
        #expect(Self.readable(wake))
        #expect(hostA.takeRequest(id: id) == nil)
        #expect(try hostB.entries().map(\.id) == [id])

        // Signed off: gone, and a sign-off request to a gone session says so.
        hostA.remove(id: id)
        #expect(try Self.soon { try hostB.entries().isEmpty })
        #expect(throws: SessionRegistry.RequestFailure.gone) { try hostB.requestSignOff(of: expected, by: "root") }
    }
}
