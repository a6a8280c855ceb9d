import CSQLite
import Synchronization

/// One connection to a SQLite file: Ward's own thin layer over the C API.
///
/// Hand-written rather than GRDB: GRDB imports the whole of Foundation (`Date`, `Data`, `URL`,
/// `NSNumber`…), which alone linked libFoundation and its ICU data, 45 MB of a 77 MB static
/// binary; and Ward's hot paths had already stepped past GRDB's rows, cursors and arguments to
/// the C API (Benchmarks/README.md, "Why the hot paths look as they do"). What is kept is what
/// GRDB set on every connection: extended result codes, a busy timeout, foreign keys on, no
/// double-quoted string literals, the rollback journal, and a check at open that the file is a
/// database.
///
/// Not thread-safe, as GRDB's `DatabaseQueue` serialised it: the connection is opened
/// `SQLITE_OPEN_NOMUTEX` and used by its owner alone (it is not `Sendable`); only `interrupter`
/// may be handed to another thread.
final class SQLiteConnection {
    /// How a connection is opened.
    struct Options {
        /// Opened `SQLITE_OPEN_READONLY`: a file to copy from, never written.
        var readonly = false
        /// `PRAGMA foreign_keys = ON`, which SQLite leaves off.
        var foreignKeys = true
        /// How long a statement waits for another connection's lock (another Ward session
        /// may be writing a note) before it fails with `SQLITE_BUSY`.
        var busyTimeoutMilliseconds: CInt = 5000
        /// Statements run once the connection is set up, before anything reads it.
        var setUp: String?
    }

    /// The `sqlite3*`, for the C calls of the bulk paths (`BulkStatement`, `PostgresBulkLoad`).
    let handle: OpaquePointer
    /// What interrupts this connection's running statement from any thread.
    let interrupter: Interrupter
    /// Prepared statements by their SQL: the search's and the chart loader's are compiled once
    /// per connection, and go with it when the lock closes it.
    private var statements: [String: SQLiteStatement] = [:]
    private var isClosed = false

    /// Opens (creating unless read-only) the file at `path`.
    /// - Throws: `SQLiteError` when SQLite cannot open it or it is not a database.
    init(path: String, options: Options = Options()) throws {
        var flags = options.readonly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        flags |= SQLITE_OPEN_NOMUTEX
        var opened: OpaquePointer?
        let code = sqlite3_open_v2(path, &opened, flags, nil)
        guard code == SQLITE_OK, let opened else {
            let error = SQLiteError(code: code, connection: opened)
            sqlite3_close_v2(opened)
            throw error
        }
        handle = opened
        interrupter = Interrupter(opened)
        sqlite3_extended_result_codes(opened, 1)
        sqlite3_busy_timeout(opened, options.busyTimeoutMilliseconds)
        ward_sqlite_disable_double_quoted_strings(opened)
        do {
            if options.foreignKeys { try execute("PRAGMA foreign_keys = ON") }
            if let setUp = options.setUp { try execute(setUp) }
            // A file that is not a database (or is damaged at its start) fails here, at open.
            try prepare("SELECT * FROM sqlite_master LIMIT 1").eachRow([]) { _ in }
        } catch {
            close()
            throw error
        }
    }

    deinit { close() }

    /// Finalizes every statement and closes. `sqlite3_close_v2` frees the connection once the
    /// last statement made outside the cache (a `BulkStatement` still held) is finalized.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        interrupter.disarm()
        statements.removeAll()
        sqlite3_close_v2(handle)
    }

    /// The statement for `sql`, compiled on first use and kept for the connection's life.
    func statement(_ sql: String) throws -> SQLiteStatement {
        if let statement = statements[sql] { return statement }
        let statement = try prepare(sql, persistent: true)
        statements[sql] = statement
        return statement
    }

    /// A statement for `sql` of the caller's own, finalized when it goes. `persistent` tells
    /// SQLite it will be run many times (`SQLITE_PREPARE_PERSISTENT`).
    func prepare(_ sql: String, persistent: Bool = false) throws -> SQLiteStatement {
        var prepared: OpaquePointer?
        let flags = persistent ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0
        let code = sqlite3_prepare_v3(handle, sql, -1, flags, &prepared, nil)
        guard code == SQLITE_OK, let prepared else { throw SQLiteError(code: code, connection: handle) }
        return SQLiteStatement(prepared)
    }

    /// Runs `sql`: one statement with `arguments`, through the cache; without arguments, any
    /// number of statements, separated by semicolons (a migration's script).
    func execute(_ sql: String, _ arguments: [SQLiteValue] = []) throws {
        guard arguments.isEmpty else { return try statement(sql).run(arguments) }
        var message: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &message)
        defer { sqlite3_free(message) }
        guard code == SQLITE_OK else {
            throw SQLiteError(
                code: sqlite3_extended_errcode(handle),
                message: message.map { String(cString: $0) } ?? SQLiteError(code: code, connection: handle).message
            )
        }
    }

    /// Steps the cached statement for `sql` with `arguments` and hands each row to `body`.
    func eachRow(_ sql: String, _ arguments: [SQLiteValue], _ body: (StatementRow) throws -> Void) throws {
        try statement(sql).eachRow(arguments, body)
    }

    /// `eachRow` with integer arguments only (ids, ranges of ids).
    func eachRow(_ sql: String, _ arguments: [Int64], _ body: (StatementRow) throws -> Void) throws {
        try eachRow(sql, arguments.map { .integer($0) }, body)
    }

    /// The first column of the first row, or nil when there is no row or it holds NULL.
    func fetchOne<T: SQLiteColumnValue>(_ sql: String, _ arguments: [SQLiteValue] = []) throws -> T? {
        var value: T?
        var first = true
        try eachRow(sql, arguments) { row in
            if first { value = row[0] }
            first = false
        }
        return value
    }

    /// The first column of every row; a NULL reads as the type's zero (SQLite's conversion).
    func fetchAll<T: SQLiteColumnValue>(_ sql: String, _ arguments: [SQLiteValue] = []) throws -> [T] {
        var values: [T] = []
        try eachRow(sql, arguments) { values.append(T(row: $0, index: 0)) }
        return values
    }

    /// The rowid of the last row this connection inserted.
    var lastInsertedRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Whether a transaction is open (SQLite is not in autocommit).
    var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// How a transaction takes its lock.
    enum TransactionKind: String {
        /// At the first read: what a read wants, as `DatabaseQueue.read` did.
        case deferred = "BEGIN DEFERRED TRANSACTION"
        /// The write lock at once: a write never fails halfway because another connection
        /// began writing after it read; `DatabaseQueue.write` and GRDB's migrations did the same.
        case immediate = "BEGIN IMMEDIATE TRANSACTION"
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    /// `BEGIN` and `COMMIT` are cached statements, compiled once per connection (compiling them
    /// on every read was a fifth of an `open`'s store time: Benchmarks/README.md).
    func transaction<T>(_ kind: TransactionKind, _ body: () throws -> T) throws -> T {
        try statement(kind.rawValue).run([])  // the SQL whole: no string built on every read
        let result: T
        do {
            result = try body()
            try statement("COMMIT TRANSACTION").run([])
        } catch {
            // SQLite may have rolled back already (an interrupt, a full disk); the first
            // error is the one to report.
            if isInTransaction { try? statement("ROLLBACK TRANSACTION").run([]) }
            throw error
        }
        return result
    }

    /// Gives back what memory SQLite can and drops the cached statements, as GRDB's
    /// `releaseMemory` did; they are compiled again on their next use.
    func releaseMemory() {
        statements.removeAll()
        sqlite3_db_release_memory(handle)
    }

    /// Interrupts a connection's running statement from any thread (`sqlite3_interrupt` is
    /// thread-safe), never after the connection has closed: the lock orders the two.
    final class Interrupter: Sendable {
        /// The `sqlite3*` as its address (a pointer is not `Sendable`); 0 once closed.
        private let connection: Mutex<UInt>

        fileprivate init(_ handle: OpaquePointer) { connection = Mutex(UInt(bitPattern: handle)) }

        /// The running statement, if any, fails with `SQLITE_INTERRUPT`.
        func interrupt() {
            connection.withLock { address in
                if let handle = OpaquePointer(bitPattern: address) { sqlite3_interrupt(handle) }
            }
        }

        fileprivate func disarm() { connection.withLock { $0 = 0 } }
    }
}
