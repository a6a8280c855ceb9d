import FoundationEssentials
import Glibc
import WardCore

/// `ward demo`: writes a records home of synthetic patients, the same home for the same seed.
///
/// Histories vary the way real ones do: most patients have a visit or two, a few have dozens,
/// and those few carry hundreds of observations; chronic conditions come with age and bring
/// their drugs, follow-up visits and labs. The clock is fixed (`referenceTime`), so nothing
/// depends on the day the generator runs.
///
/// Speed and size (a million patients in minutes, under 2 GB): rows go into bare tables through
/// prepared statements bound with SQLite's C API, in one transaction per batch, with no journal
/// and no fsync; indexes and the name search are built once at the end (sorting through
/// temporary files, not memory, so a million patients need well under 1 GB). The file is written
/// under a temporary name and renamed into place only when complete, so a crash or Ctrl-C never
/// leaves a half-made home that looks real.
public struct DemoGenerator: Sendable {
    public static let defaultPatients = 1000
    public static let defaultSeed: UInt64 = 1
    /// MRNs are `W` and seven digits.
    public static let maximumPatients = 9_999_999
    /// 2025-01-01T00:00:00Z: "now" for every demo history.
    static let referenceTime: Int64 = 1_735_689_600
    static let batchSize = 5000

    public let seed: UInt64
    public let patients: Int

    public init(seed: UInt64 = defaultSeed, patients: Int = defaultPatients) {
        precondition((1...Self.maximumPatients).contains(patients))
        self.seed = seed
        self.patients = patients
    }

    /// The MRN of the patient at `index` (0-based).
    public static func mrn(index: Int) -> String {
        let digits = String(index + 1)
        return "W" + String(repeating: "0", count: max(0, 7 - digits.count)) + digits
    }

    /// Writes `records.sqlite` into the home `directory`, which must hold no records yet.
    /// `progress(done, total)` is called after each batch, on the calling thread.
    public func write(home directory: String, progress: (Int, Int) -> Void = { _, _ in }) throws {
        let final = SQLiteRecordStore.path(in: directory, named: SQLiteRecordStore.fileName)
        try refuseExistingRecords(at: final)
        let partial = final + ".partial"
        try? FileManager.default.removeItem(atPath: partial)
        try write(path: partial, progress: progress)
        guard rename(partial, final) == 0 else {
            throw StoreError.cannotOpen(path: final, reason: String(cString: strerror(errno)))
        }
    }

    private func refuseExistingRecords(at path: String) throws {
        guard FileManager.default.fileExists(atPath: path) else { return }
        let store = try SQLiteRecordStore(path: path)
        defer { store.close() }
        let count: Int? = try store.read { try $0.fetchOne("SELECT count(*) FROM (SELECT 1 FROM patient LIMIT 1)") }
        if count ?? 0 > 0 { throw StoreError.alreadyHasRecords(path: path) }
        store.close()
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Writes a complete demo database at `path` (which must not exist). Without `indexed`,
    /// only the tables and their rows: a staging file for `PostgresBulkLoad`, which needs no
    /// index or name search of SQLite's.
    func write(path: String, indexed: Bool = true, progress: (Int, Int) -> Void) throws {
        var options = SQLiteConnection.Options()
        options.foreignKeys = false  // rows reference patients written just before them
        // A half-written demo file is thrown away, never recovered: no journal, no fsync.
        options.setUp = """
            PRAGMA journal_mode = OFF;
            PRAGMA synchronous = OFF;
            PRAGMA cache_size = -65536;
            PRAGMA locking_mode = EXCLUSIVE;
            """
        do {
            let db = try SQLiteRecordStore.open(path, options: options, upTo: SQLiteSchema.tablesMigration)
            defer { db.close() }
            try db.transaction(.immediate) { try writeCatalog(db) }
            var done = 0
            while done < patients {
                let end = min(done + Self.batchSize, patients)
                try db.transaction(.immediate) {
                    let writer = try DemoWriter(db)
                    for index in done..<end {
                        var history = DemoHistory(seed: seed, index: index)
                        try history.write(into: writer)
                    }
                }
                done = end
                progress(done, patients)
            }
            guard indexed else { return }
            try SQLiteSchema.migrator.migrate(db)
            try db.execute("INSERT INTO patient_fts(patient_fts) VALUES ('optimize')")
            try db.execute("PRAGMA journal_mode = DELETE")
        } catch let error as StoreError {
            throw error
        } catch let error as FileSecurityError {
            throw error
        } catch {
            throw StoreError.database(reason: SQLiteRecordStore.reason(error))
        }
    }

    private func writeCatalog(_ db: SQLiteConnection) throws {
        for (offset, code) in DemoCatalog.observationCodes.enumerated() {
            try db.execute(
                "INSERT INTO observation_code (id, code, display, unit, category) VALUES (?, ?, ?, ?, ?)",
                [
                    .integer(offset + 1), .text(code.code), .text(code.display), .text(code.unit),
                    .text(code.category.rawValue),
                ]
            )
        }
        try db.execute(
            "INSERT INTO meta (key, value) VALUES ('demo.seed', ?), ('demo.patients', ?)",
            [.text(String(seed)), .text(String(patients))]
        )
    }
}
