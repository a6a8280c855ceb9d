import WardCore

extension SQLiteRecordStore {
    /// `ward db migrate` on the home's own records file: creates it (0600) or applies the
    /// migrations it lacks, and says which.
    ///
    /// A session still migrates the home's file when it opens it (one host, and how `ward demo`
    /// works); this is the same step, run on purpose. Unless `force`, it refuses
    /// (`SchemaError.sessionsConnected`, exit 75) when there is something to apply and the home's
    /// session registry lists live sessions: they may run an older Ward, and a migration holds
    /// the file's write lock while it runs.
    ///
    /// - Throws: `StoreError.migrationFailed` for a file a newer Ward wrote; `StoreError.cannotOpen`.
    public static func migrateSchema(home: WardHome, force: Bool = false) throws -> SchemaMigration {
        let path = home.recordsPath
        try checkFiles(path)
        let database: SQLiteConnection
        do {
            database = try SQLiteConnection(path: path)
        } catch {
            throw StoreError.cannotOpen(path: path, reason: reason(error))
        }
        defer { database.close() }
        let migrator = SQLiteSchema.migrator
        do {
            let (superseded, applied) = try database.transaction(.deferred) {
                (try migrator.hasBeenSuperseded(database), try migrator.appliedIdentifiers(database))
            }
            if superseded { throw StoreError.migrationFailed(path: path, reason: "it was written by a newer Ward") }
            let pending = migrator.migrations.filter { !applied.contains($0) }
            let sessions = SessionRegistry(home: home).entries()
            if !force, !pending.isEmpty, !sessions.isEmpty {
                throw SchemaError.sessionsConnected(
                    target: path,
                    pending: pending,
                    sessions: sessions.count,
                    clients: Set(sessions.map { Sanitizer.line($0.peer ?? $0.tty ?? "no terminal") }).sorted()
                )
            }
            try migrator.migrate(database)
            return SchemaMigration(version: migrator.migrations.count, applied: pending)
        } catch let error as StoreError {
            throw error
        } catch let error as SchemaError {
            throw error
        } catch {
            throw StoreError.migrationFailed(path: path, reason: reason(error))
        }
    }
}
