extension SQLiteRecordStore: ImportingStore {
    func importTransaction<T>(_ body: (any ImportTarget) throws -> T) throws -> T {
        try write { db in try body(SQLiteImportTarget(db: db)) }
    }
}

extension FHIRImporter {
    /// An importer into the home's records file.
    public init(store: SQLiteRecordStore) {
        self.init(into: store)
    }
}
