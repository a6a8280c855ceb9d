import Foundation
import GRDB
import Glibc
import Synchronization
import WardCore

/// The embedded records store: one SQLite file in the Ward home, through GRDB.
///
/// One connection (`DatabaseQueue`) because the shell is single-threaded and a lock must be able
/// to drop every page of patient data at once by closing it. The rollback journal rather than
/// WAL: closing a WAL database checkpoints, which is I/O the lock must not wait on.
public final class SQLiteRecordStore: RecordStore {
    /// The records file's name inside a Ward home.
    public static let fileName = "records.sqlite"

    /// The records file.
    public let path: String
    private var queue: DatabaseQueue? {
        didSet { interruptTarget.queue.withLock { $0 = queue } }
    }
    /// The connection as the watchdog's thread sees it, and its place in `CommandInterruption`.
    private let interruptTarget = InterruptTarget()
    private var interruption: CommandInterruption.Registration?

    /// Opens (creating if needed, 0600) the records file of the home `directory` and brings its
    /// schema up to date.
    public convenience init(home directory: String) throws {
        try self.init(path: (directory as NSString).appendingPathComponent(Self.fileName))
    }

    /// Opens (creating if needed, 0600) the records file at `path` and brings its schema up to date.
    public init(path: String) throws {
        self.path = path
        queue = try Self.open(path)
        interruptTarget.queue.withLock { [queue] in $0 = queue }  // observers do not run in init
        interruption = CommandInterruption.register { [interruptTarget] in interruptTarget.interrupt() }
    }

    public func interrupt() { interruptTarget.interrupt() }

    /// The open connection behind a lock, for `interrupt()` from any thread.
    private final class InterruptTarget: Sendable {
        let queue = Mutex<DatabaseQueue?>(nil)

        func interrupt() { queue.withLock { $0?.interrupt() } }
    }

    deinit { close() }

    // MARK: Connection

    /// Opens and migrates. The file is created 0600 and checked first (`checkFiles`): SQLite
    /// would create it 0644 less the umask, and its journals copy the database file's mode.
    /// `target` stops the migrations after that one (the demo generator loads bare tables).
    static func open(
        _ path: String,
        configuration: Configuration = defaultConfiguration,
        upTo target: String? = nil
    ) throws -> DatabaseQueue {
        try checkFiles(path)
        let queue: DatabaseQueue
        do {
            queue = try DatabaseQueue(path: path, configuration: configuration)
        } catch {
            throw StoreError.cannotOpen(path: path, reason: Self.reason(error))
        }
        do {
            let migrator = SQLiteSchema.migrator
            if try queue.read({ try migrator.hasBeenSuperseded($0) }) {
                throw StoreError.migrationFailed(path: path, reason: "it was written by a newer Ward")
            }
            if let target {
                try migrator.migrate(queue, upTo: target)
            } else {
                try migrator.migrate(queue)
            }
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError.migrationFailed(path: path, reason: Self.reason(error))
        }
        return queue
    }

    /// Creates the records file 0600 when missing, then checks it and any journal beside it
    /// (`-journal`, `-wal`, `-shm`): the owner's alone, a regular file, not a symbolic link.
    ///
    /// GRDB opens by path, so the check is made here, on a descriptor opened `O_NOFOLLOW`, just
    /// before; the home around it is 0700, so no one else can swap the file in between.
    /// - Throws: `FileSecurityError` (exit 78 with the `chmod` that fixes it; 74 when the system
    ///   call itself failed).
    static func checkFiles(_ path: String) throws {
        let descriptor = try FileSecurity.openFile(atPath: path, flags: O_RDWR, create: true)
        Glibc.close(descriptor)
        for journal in ["-journal", "-wal", "-shm"] { try FileSecurity.checkIfPresent(atPath: path + journal) }
    }

    static var defaultConfiguration: Configuration {
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)  // another Ward session may be writing a note
        configuration.label = "ward.records"
        return configuration
    }

    public func releaseMemory() {
        queue?.releaseMemory()
    }

    public func close() {
        guard let queue else { return }
        self.queue = nil
        // On failure (a statement still alive) the queue's deinit closes with sqlite3_close_v2,
        // which frees the connection once the last statement goes.
        try? queue.close()
    }

    public func reopen() throws {
        guard queue == nil else { return }
        queue = try Self.open(path)
    }

    private func connection() throws -> DatabaseQueue {
        guard let queue else { throw StoreError.closed }
        return queue
    }

    /// Runs a read in one deferred transaction, turning GRDB's errors into `StoreError` (whose
    /// text carries no values).
    ///
    /// Not `DatabaseQueue.read`: it sets `PRAGMA query_only` on before the body and off after it,
    /// and SQLite expires every prepared statement on the connection when a flag pragma runs, so
    /// each cached statement (the search's, the chart loader's) was compiled again on its next
    /// step: over a million patients, a third of a two-word `find` and more than half of an
    /// `open`. Every statement a read runs is one of this module's own SELECTs, so the guard
    /// `query_only` adds is not worth compiling each of them again on every read.
    ///
    /// Nor `Database.inTransaction`: it compiles `BEGIN` and `COMMIT` again on every call (a
    /// fifth of an `open`'s store time: Benchmarks/README.md); here both are cached
    /// statements, compiled once per connection.
    func read<T>(_ body: (Database) throws -> T) throws -> T {
        do {
            return try connection().inDatabase { db in
                try db.cachedStatement(sql: "BEGIN DEFERRED TRANSACTION").execute()
                let result: T
                do {
                    result = try body(db)
                } catch {
                    try? db.rollback()
                    throw error
                }
                try db.cachedStatement(sql: "COMMIT TRANSACTION").execute()
                return result
            }
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError.database(reason: Self.reason(error))
        }
    }

    /// Runs a read of one statement in autocommit: SQLite wraps the statement in its own read
    /// transaction, so a transaction around it only adds a `BEGIN` and a `COMMIT`.
    func readOne<T>(_ body: (Database) throws -> T) throws -> T {
        do {
            return try connection().inDatabase(body)
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError.database(reason: Self.reason(error))
        }
    }

    func write<T>(_ body: (Database) throws -> T) throws -> T {
        do {
            return try connection().write(body)
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError.database(reason: Self.reason(error))
        }
    }

    /// An error's reason without the SQL or its arguments, which GRDB's descriptions may include.
    static func reason(_ error: Error) -> String {
        if let error = error as? DatabaseError {
            return error.message ?? "SQLite error \(error.resultCode.rawValue)"
        }
        return "\(type(of: error))"
    }

    // MARK: Queries

    public func find(_ text: String, limit: Int) throws -> SearchResult {
        let search = PatientSearch(text)
        guard !search.isEmpty, limit > 0 else { return .none }
        return try read { db in try search.run(db, limit: limit) }
    }

    public func lookUp(mrn: String) throws -> PatientMatch? {
        try readOne { db in try PatientSearch.match(mrn: mrn, db) }
    }

    public func patients(mrnStartingWith prefix: String, limit: Int) throws -> SearchResult {
        guard !prefix.isEmpty, limit > 0 else { return .none }
        return try read { db in try PatientSearch.matches(mrnPrefix: prefix, limit: limit, db) }
    }

    public func chart(mrn: String, contents: ChartContents) throws -> LoadedChart {
        try read { db in try SQLiteChartLoader(db).load(mrn: mrn, contents: contents) }
    }

    public func addNote(mrn: String, author: String, text: String, at time: Date, corrects: Int64?) throws -> Note {
        let seconds = Int64(time.timeIntervalSince1970.rounded(.down))
        return try write { db in
            guard let id = try Int64.fetchOne(db, sql: "SELECT id FROM patient WHERE mrn = ?", arguments: [mrn]) else {
                throw StoreError.noSuchPatient
            }
            if let corrects {
                let found = try Bool.fetchOne(
                    db,
                    sql: "SELECT EXISTS (SELECT 1 FROM note WHERE id = ? AND patient_id = ?)",
                    arguments: [corrects, id]
                )
                guard found == true else { throw StoreError.noSuchNote }
            }
            try db.execute(
                sql: "INSERT INTO note (patient_id, author, time, text, corrects) VALUES (?, ?, ?, ?, ?)",
                arguments: [id, author, seconds, text, corrects]
            )
            return Note(
                author: author,
                time: Date(timeIntervalSince1970: TimeInterval(seconds)),
                text: text,
                id: db.lastInsertedRowID,
                corrects: corrects
            )
        }
    }

    /// The count the triggers keep in `meta` (`SQLiteSchema.patientCountMigration`): one row,
    /// where `COUNT(*)` read the whole MRN index, tens of milliseconds at a million patients.
    public func patientCount() throws -> Int {
        try read { db in
            try Int.fetchOne(
                db,
                sql: "SELECT CAST(value AS INTEGER) FROM meta WHERE key = ?",
                arguments: [SQLiteSchema.patientCountKey]
            ) ?? 0
        }
    }

    public func demoMarker() throws -> DemoMarker? {
        try read { db in
            DemoMarker(meta: try Row.fetchAll(db, sql: DemoMarker.metaQuery).map { ($0[0], $0[1]) })
        }
    }
}
