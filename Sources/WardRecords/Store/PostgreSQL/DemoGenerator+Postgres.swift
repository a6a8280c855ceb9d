import FoundationEssentials

extension DemoGenerator {
    /// The staging file's name in the home: the demo written as SQLite, then copied.
    public static let stagingFileName = "records.demo-staging.sqlite"

    /// Loads the demo into the shared records database of `store`, which must hold no records
    /// (`StoreError.databaseHasRecords`), through a staging SQLite file in the home `directory`
    /// (`PostgresBulkLoad` says why).
    ///
    /// The staging file is made 0600 in the 0700 home and removed afterwards, whether the load
    /// worked or not; one left by a load that was killed is removed first. `making(done,
    /// total)` counts patients generated, `copying(done, total)` rows sent to the server.
    public func write(
        into store: PostgresRecordStore,
        staging directory: String,
        making: (Int, Int) -> Void = { _, _ in },
        copying: (Int, Int) -> Void = { _, _ in }
    ) throws {
        guard !store.isLocked else { throw StoreError.closed }
        if try store.patientCount() > 0 {
            throw StoreError.databaseHasRecords(server: store.link.server)
        }
        let path = SQLiteRecordStore.path(in: directory, named: Self.stagingFileName)
        let remove = {
            for suffix in ["", "-journal"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }
        remove()
        defer { remove() }
        try write(path: path, indexed: false, progress: making)
        var options = SQLiteConnection.Options()
        options.readonly = true
        do {
            let staging = try SQLiteConnection(path: path, options: options)
            defer { staging.close() }
            try PostgresBulkLoad(link: store.link, staging: staging).run(progress: copying)
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError.database(reason: SQLiteRecordStore.reason(error))
        }
    }
}
