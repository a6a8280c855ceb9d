/// A record store that `FHIRImporter` can write into: it runs an import in one transaction of
/// its own, through the `ImportTarget` that speaks its SQL.
///
/// Each backend conforms in its own folder (`SQLiteRecordStore+Import`,
/// `PostgresRecordStore+Import`), so the importer names no backend.
protocol ImportingStore: RecordStore {
    /// Runs `body` in one transaction: all of it is written, or none.
    func importTransaction<T>(_ body: (any ImportTarget) throws -> T) throws -> T
}
