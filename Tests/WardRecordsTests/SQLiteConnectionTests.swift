import CSQLite
import Glibc
import Synchronization
import Testing

@testable import WardRecords

/// Ward's own layer over libsqlite3: what GRDB gave the store and the store still relies on.
@Suite struct SQLiteConnectionTests {
    private static func connection(_ home: TemporaryHome) throws -> SQLiteConnection {
        let db = try SQLiteConnection(path: home.recordsPath)
        try db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)")
        return db
    }

    @Test func text_withU0000_isStoredAndReadWhole() throws {
        let home = TemporaryHome()
        defer { home.remove() }
        let db = try Self.connection(home)
        try db.execute("INSERT INTO t (name) VALUES (?)", [.text("nul\u{0}byte")])
        let name: String? = try db.fetchOne("SELECT name FROM t")
        #expect(name == "nul\u{0}byte")
        let type: String? = try db.fetchOne("SELECT typeof(name) FROM t")
        #expect(type == "text")
    }

    @Test func aFailedStatement_rollsTheTransactionBack_andItsErrorNamesNoValue() throws {
        let home = TemporaryHome()
        defer { home.remove() }
        let db = try Self.connection(home)
        try db.execute("INSERT INTO t (name) VALUES (?)", [.text("Lovelace")])
        do {
            try db.transaction(.immediate) {
                try db.execute("INSERT INTO t (name) VALUES (?)", [.text("Hopper")])
                try db.execute("INSERT INTO t (name) VALUES (?)", [.text("Lovelace")])
            }
            Issue.record("expected a constraint error")
        } catch let error as SQLiteError {
            #expect(error.code == SQLITE_CONSTRAINT | 8 << 8)  // SQLITE_CONSTRAINT_UNIQUE
            #expect(!error.message.contains("Lovelace"))
        }
        #expect(!db.isInTransaction)
        let names: [String] = try db.fetchAll("SELECT name FROM t ORDER BY id")
        #expect(names == ["Lovelace"])
    }

    @Test func foreignKeys_areEnforced() throws {
        let home = TemporaryHome()
        defer { home.remove() }
        let db = try Self.connection(home)
        try db.execute("CREATE TABLE child (t_id INTEGER NOT NULL REFERENCES t(id))")
        #expect(throws: SQLiteError.self) { try db.execute("INSERT INTO child (t_id) VALUES (?)", [.integer(42)]) }
    }

    @Test func aFileThatIsNotADatabase_failsAtOpen() throws {
        let home = TemporaryHome()
        defer { home.remove() }
        let text = Array("not a database, only text that is long enough to be a header\n".utf8)
        let descriptor = open(home.recordsPath, O_WRONLY | O_CREAT, 0o600)
        #expect(text.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) } == text.count)
        close(descriptor)
        #expect(throws: SQLiteError.self) { try SQLiteConnection(path: home.recordsPath) }
    }

    /// The termination watchdog interrupts from its own thread: the running statement ends with
    /// `SQLITE_INTERRUPT`, and the connection goes on working.
    @Test func interrupt_fromAnotherThread_endsTheRunningStatement() throws {
        let home = TemporaryHome()
        defer { home.remove() }
        let db = try Self.connection(home)
        let loop = InterruptLoop(interrupter: db.interrupter)
        var thread = pthread_t()
        let box = Unmanaged.passRetained(loop)
        #expect(
            pthread_create(
                &thread,
                nil,
                { argument in
                    let loop = Unmanaged<InterruptLoop>.fromOpaque(argument!).takeRetainedValue()
                    // sqlite3_interrupt is a no-op while nothing runs: keep at it until the query ends.
                    while !loop.done.load(ordering: .acquiring) {
                        loop.interrupter.interrupt()
                        sched_yield()
                    }
                    return nil
                },
                box.toOpaque()
            ) == 0
        )
        let endless = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n"
        do {
            let _: Int? = try db.fetchOne(endless)
            Issue.record("the endless query returned")
        } catch let error as SQLiteError {
            #expect(error.primaryCode == SQLITE_INTERRUPT)
        }
        loop.done.store(true, ordering: .releasing)
        pthread_join(thread, nil)
        let one: Int? = try db.fetchOne("SELECT 1")
        #expect(one == 1)
        db.close()
        loop.interrupter.interrupt()  // after close: nothing to interrupt, and no use of a freed connection
    }
}

/// What the interrupting thread is handed.
private final class InterruptLoop: Sendable {
    let interrupter: SQLiteConnection.Interrupter
    let done = Atomic<Bool>(false)

    init(interrupter: SQLiteConnection.Interrupter) { self.interrupter = interrupter }
}
