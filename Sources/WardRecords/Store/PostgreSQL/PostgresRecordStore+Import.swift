extension PostgresRecordStore: ImportingStore {
    func importTransaction<T>(_ body: (any ImportTarget) throws -> T) throws -> T {
        guard !isLocked else { throw StoreError.closed }
        return try link.transaction { try body(PostgresImportTarget(link: link)) }
    }
}

extension FHIRImporter {
    /// An importer into the site's shared database, each bundle or export one PostgreSQL
    /// transaction.
    public init(store: PostgresRecordStore) {
        self.init(into: store)
    }
}
