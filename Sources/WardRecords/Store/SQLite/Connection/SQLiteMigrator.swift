import CSQLite

/// A schema's migrations in order, each applied once, in a transaction of its own, and
/// recorded in the `grdb_migrations` table.
///
/// That table's name and rows are GRDB's `DatabaseMigrator`'s, kept exactly (one
/// `identifier TEXT NOT NULL PRIMARY KEY` a migration applied): a home written by a Ward that
/// used GRDB opens and migrates unchanged, and an older Ward still reads which migrations a
/// newer one applied (`hasBeenSuperseded`). So is GRDB's way of running one: foreign keys off
/// around the transaction (SQLite's recipe for altering tables), checked before it commits.
struct SQLiteMigrator {
    typealias Migration = (identifier: String, migrate: (SQLiteConnection) throws -> Void)

    private(set) var registered: [Migration] = []

    /// The identifiers, in the order they apply.
    var migrations: [String] { registered.map(\.identifier) }

    /// Adds a migration after the ones registered before it.
    mutating func registerMigration(_ identifier: String, _ migrate: @escaping (SQLiteConnection) throws -> Void) {
        registered.append((identifier, migrate))
    }

    /// Every identifier the database records, known here or not; none when it has no table yet.
    func appliedIdentifiers(_ db: SQLiteConnection) throws -> Set<String> {
        let exists: Bool? = try db.fetchOne(
            "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'grdb_migrations')"
        )
        guard exists == true else { return [] }
        let identifiers: [String] = try db.fetchAll("SELECT identifier FROM grdb_migrations")
        return Set(identifiers)
    }

    /// Whether the database records a migration this one does not know: a newer Ward wrote it.
    func hasBeenSuperseded(_ db: SQLiteConnection) throws -> Bool {
        let known = Set(migrations)
        return try appliedIdentifiers(db).contains { !known.contains($0) }
    }

    /// Applies, in order, every migration not yet applied, up to and including `target` (all of
    /// them when nil).
    func migrate(_ db: SQLiteConnection, upTo target: String? = nil) throws {
        try db.execute("CREATE TABLE IF NOT EXISTS grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
        let applied = try appliedIdentifiers(db)
        for migration in registered {
            if !applied.contains(migration.identifier) { try run(migration, db) }
            if migration.identifier == target { return }
        }
    }

    private func run(_ migration: Migration, _ db: SQLiteConnection) throws {
        let foreignKeys: Bool? = try db.fetchOne("PRAGMA foreign_keys")
        guard foreignKeys == true else { return try apply(migration, db, checkingForeignKeys: false) }
        try db.execute("PRAGMA foreign_keys = OFF")
        do {
            try apply(migration, db, checkingForeignKeys: true)
        } catch {
            try? db.execute("PRAGMA foreign_keys = ON")
            throw error
        }
        try db.execute("PRAGMA foreign_keys = ON")
    }

    private func apply(_ migration: Migration, _ db: SQLiteConnection, checkingForeignKeys: Bool) throws {
        try db.transaction(.immediate) {
            try migration.migrate(db)
            try db.execute("INSERT INTO grdb_migrations (identifier) VALUES (?)", [.text(migration.identifier)])
            if checkingForeignKeys {
                var broken = false
                try db.eachRow("PRAGMA foreign_key_check", [] as [SQLiteValue]) { _ in broken = true }
                if broken {
                    throw SQLiteError(
                        code: SQLITE_CONSTRAINT | 3 << 8,  // SQLITE_CONSTRAINT_FOREIGNKEY, a macro Swift cannot import
                        message: "migration \(migration.identifier) left rows whose foreign keys point nowhere"
                    )
                }
            }
        }
    }
}
