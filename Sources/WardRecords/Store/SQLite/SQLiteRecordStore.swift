import FoundationEssentials
import Glibc
import Synchronization
import WardCore

/// The embedded records store: one SQLite file in the Ward home, through `SQLiteConnection`.
///
/// One connection because the shell is single-threaded and a lock must be able
/// to drop every page of patient data at once by closing it. The rollback journal rather than
/// WAL: closing a WAL database checkpoints, which is I/O the lock must not wait on.
public final class SQLiteRecordStore: RecordStore {
    /// The records file's name inside a Ward home.
    public static let fileName = "records.sqlite"

    /// The records file.
    public let path: String
    private var database: SQLiteConnection? {
        didSet { interruptTarget.interrupter.withLock { $0 = database?.interrupter } }
    }
    /// The connection as the watchdog's thread sees it, and its place in `CommandInterruption`.
    private let interruptTarget = InterruptTarget()
    private var interruption: CommandInterruption.Registration?

    /// Opens (creating if needed, 0600) the records file of the home `directory` and brings its
    /// schema up to date.
    public convenience init(home directory: String) throws {
        try self.init(path: Self.path(in: directory, named: Self.fileName))
    }

    /// Opens (creating if needed, 0600) the records file at `path` and brings its schema up to date.
    public init(path: String) throws {
        self.path = path
        database = try Self.open(path)
        // `database`'s observer does not run in init.
        interruptTarget.interrupter.withLock { [interrupter = database?.interrupter] in $0 = interrupter }
        interruption = CommandInterruption.register { [interruptTarget] in interruptTarget.interrupt() }
    }

    public func interrupt() { interruptTarget.interrupt() }

    /// The open connection's interrupter behind a lock, for `interrupt()` from any thread.
    private final class InterruptTarget: Sendable {
        let interrupter = Mutex<SQLiteConnection.Interrupter?>(nil)

        func interrupt() { interrupter.withLock { $0?.interrupt() } }
    }

    /// `name` in `directory`.
    static func path(in directory: String, named name: String) -> String {
        directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }

    deinit { close() }

    // MARK: Connection

    /// Opens and migrates. The file is created 0600 and checked first (`checkFiles`): SQLite
    /// would create it 0644 less the umask, and its journals copy the database file's mode.
    /// `target` stops the migrations after that one (the demo generator loads bare tables).
    static func open(
        _ path: String,
        options: SQLiteConnection.Options = SQLiteConnection.Options(),
        upTo target: String? = nil
    ) throws -> SQLiteConnection {
        try checkFiles(path)
        let database: SQLiteConnection
        do {
            database = try SQLiteConnection(path: path, options: options)
        } catch {
            throw StoreError.cannotOpen(path: path, reason: Self.reason(error))
        }
        do {
            let migrator = SQLiteSchema.migrator
            if try migrator.hasBeenSuperseded(database) {
                throw StoreError.migrationFailed(path: path, reason: "it was written by a newer Ward")
            }
            try migrator.migrate(database, upTo: target)
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError.migrationFailed(path: path, reason: Self.reason(error))
        }
        return database
    }

    /// Creates the records file 0600 when missing, then checks it and any journal beside it
    /// (`-journal`, `-wal`, `-shm`): the owner's alone, a regular file, not a symbolic link.
    ///
    /// SQLite opens by path, so the check is made here, on a descriptor opened `O_NOFOLLOW`, just
    /// before; the home around it is 0700, so no one else can swap the file in between.
    /// - Throws: `FileSecurityError` (exit 78 with the `chmod` that fixes it; 74 when the system
    ///   call itself failed).
    static func checkFiles(_ path: String) throws {
        let descriptor = try FileSecurity.openFile(atPath: path, flags: O_RDWR, create: true)
        Glibc.close(descriptor)
        for journal in ["-journal", "-wal", "-shm"] { try FileSecurity.checkIfPresent(atPath: path + journal) }
    }

    public func releaseMemory() {
        database?.releaseMemory()
    }

    public func close() {
        guard let database else { return }
        self.database = nil
        database.close()
    }

    public func reopen() throws {
        guard database == nil else { return }
        database = try Self.open(path)
    }

    private func connection() throws -> SQLiteConnection {
        guard let database else { throw StoreError.closed }
        return database
    }

    /// Runs a read in one deferred transaction, turning SQLite's errors into `StoreError` (whose
    /// text carries no values).
    ///
    /// No `PRAGMA query_only` around it, as GRDB's `read` set: SQLite expires every prepared
    /// statement on the connection when a flag pragma runs, so each cached statement (the
    /// search's, the chart loader's) was compiled again on its next step: over a million
    /// patients, a third of a two-word `find` and more than half of an `open`. Every statement a
    /// read runs is one of this module's own SELECTs.
    func read<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try mappingErrors { db in try db.transaction(.deferred) { try body(db) } }
    }

    /// Runs a read of one statement in autocommit: SQLite wraps the statement in its own read
    /// transaction, so a transaction around it only adds a `BEGIN` and a `COMMIT`.
    func readOne<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try mappingErrors(body)
    }

    /// Runs a write in one immediate transaction: it takes the write lock before it reads, so it
    /// never fails halfway because another session began writing meanwhile.
    func write<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try mappingErrors { db in try db.transaction(.immediate) { try body(db) } }
    }

    private func mappingErrors<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        do {
            return try body(connection())
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError.database(reason: Self.reason(error))
        }
    }

    /// An error's reason: SQLite's message, which names no value.
    static func reason(_ error: Error) -> String {
        if let error = error as? SQLiteError { return error.message }
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
            guard let id: Int64 = try db.fetchOne("SELECT id FROM patient WHERE mrn = ?", [.text(mrn)]) else {
                throw StoreError.noSuchPatient
            }
            if let corrects {
                let found: Bool? = try db.fetchOne(
                    "SELECT EXISTS (SELECT 1 FROM note WHERE id = ? AND patient_id = ?)",
                    [.integer(corrects), .integer(id)]
                )
                guard found == true else { throw StoreError.noSuchNote }
            }
            try db.execute(
                "INSERT INTO note (patient_id, author, time, text, corrects) VALUES (?, ?, ?, ?, ?)",
                [.integer(id), .text(author), .integer(seconds), .text(text), .optional(corrects)]
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
            try db.fetchOne(
                "SELECT CAST(value AS INTEGER) FROM meta WHERE key = ?",
                [.text(SQLiteSchema.patientCountKey)]
            )
                ?? 0
        }
    }

    public func demoMarker() throws -> DemoMarker? {
        try read { db in
            var meta: [(String, String)] = []
            try db.eachRow(DemoMarker.metaQuery, [] as [SQLiteValue]) { meta.append(($0.text(0), $0.text(1))) }
            return DemoMarker(meta: meta)
        }
    }
}
