import FoundationEssentials
import WardCore

/// The one place that turns the site's `[records]` choice into a backend's objects: the record
/// store a session reads, the importer `ward import` writes with, the schema migration of `ward
/// db migrate` and the demo load of `ward demo`. Commands name a backend nowhere else.
///
/// Each backend keeps its code in a folder of its own (`Store/SQLite/`, `Store/PostgreSQL/`):
/// its `RecordStore`, its `ImportTarget` and `ImportingStore` conformance, its schema. A third
/// one is such a folder and one case here; the compiler then names each `switch` that must
/// learn it.
/// What a shell opens its store with at sign-on (`StoreBackend.storeOpener`): nil while the home
/// has no records.
public typealias RecordStoreOpener = () throws -> (any RecordStore)?

public enum StoreBackend: Sendable {
    /// The home's own SQLite file (`records.sqlite`): the default.
    case sqlite(WardHome)
    /// The site's shared PostgreSQL database (`[records] backend = "postgresql"`).
    case postgresql(PostgresSettings)

    /// The backend `records` chooses for the Ward home `home`.
    ///
    /// - Throws: `AuthError` when PostgreSQL's `password-file` cannot be read (`PostgresSettings`).
    public init(records: RecordsPolicy, home: WardHome) throws {
        if records.backend == .postgresql, let url = records.url {
            self = .postgresql(try PostgresSettings(policy: records, url: url))
        } else {
            self = .sqlite(home)
        }
    }

    /// The records as messages and audit records name them: the file, or the database and server.
    public var database: String {
        switch self {
        case .sqlite(let home): home.recordsPath
        case .postgresql(let settings): "\(settings.database) on \(settings.serverList)"
        }
    }

    /// Where live sessions list themselves and are asked to lock (`ward sessions`, `ward lock`):
    /// the home's files, whose sessions share its host; or the site's server, which reaches every
    /// host's sessions.
    public func sessionDirectory() -> any SessionDirectory {
        switch self {
        case .sqlite(let home): SessionRegistry(home: home)
        case .postgresql(let settings): PostgresSessionDirectory(settings: settings)
        }
    }

    /// The store, when there are records to read: a home without its records file gets none made
    /// (nil; `ward demo` or `ward import` writes it). A shared database is connected and its schema
    /// checked.
    ///
    /// - Throws: `StoreError.unavailable` (exit 69) naming the server when it cannot be reached;
    ///   `SchemaError` for a database `ward db migrate` has not made current.
    public func existingStore() throws -> (any RecordStore)? {
        switch self {
        case .sqlite(let home):
            guard FileManager.default.fileExists(atPath: home.recordsPath) else { return nil }
            return try SQLiteRecordStore(path: home.recordsPath)
        case .postgresql(let settings):
            return try PostgresRecordStore(settings: settings)
        }
    }

    /// What a shell opens its store with at sign-on (`Shell(openingStore:)`). A shared server is
    /// connected now, before sign-on, so that an unreachable one stops Ward at once (exit 69)
    /// rather than after a password; the connection holds no patient data yet. The home's file is
    /// opened when first needed, and may appear meanwhile.
    ///
    /// - Parameter users: The session's user directory (`userDirectory`): on PostgreSQL the store
    ///   takes its connection over, so that a session holds one and sign-on finds it open.
    public func storeOpener(sharingConnectionOf users: (any UserDirectory)? = nil) throws -> RecordStoreOpener {
        switch self {
        case .sqlite: return existingStore
        case .postgresql(let settings):
            let store =
                if let directory = users as? PostgresUserDirectory {
                    try PostgresRecordStore(sharing: directory)
                } else {
                    try PostgresRecordStore(settings: settings)
                }
            store.askBannerQuestions()
            return { store }
        }
    }

    /// An importer into the records, its store open (the home's file made when missing); its
    /// `close()` closes the store.
    public func openImporter() throws -> FHIRImporter {
        switch self {
        case .sqlite(let home): FHIRImporter(into: try SQLiteRecordStore(path: home.recordsPath))
        case .postgresql(let settings): FHIRImporter(into: try PostgresRecordStore(settings: settings))
        }
    }

    /// `ward db migrate`: creates the schema or applies the migrations it lacks, refusing while
    /// sessions are connected unless `force` (`SchemaError.sessionsConnected`, exit 75); on
    /// PostgreSQL, then narrows `sessionRole` to what sessions need. A file has no roles: the
    /// caller refuses `sessionRole` for SQLite.
    public func migrateSchema(force: Bool, sessionRole: String? = nil) throws -> SchemaMigration {
        switch self {
        case .sqlite(let home):
            precondition(sessionRole == nil, "a session role is for PostgreSQL")
            return try SQLiteRecordStore.migrateSchema(home: home, force: force)
        case .postgresql(let settings):
            return try PostgresRecordStore.migrateSchema(settings: settings, force: force, sessionRole: sessionRole)
        }
    }

    /// `ward demo`'s load into these records, staging in the home `staging` when the backend
    /// copies from a file. A shared server is connected now, so that an unreachable one stops
    /// the command (exit 69) before anything is read or generated.
    public func demoLoader(staging: WardHome) throws -> DemoLoader {
        switch self {
        case .sqlite(let home):
            return DemoLoader(
                place: "in \(home.path)",
                server: nil,
                stagingFile: nil,
                marker: {
                    guard let store = try existingStore() else { return nil }
                    defer { store.close() }
                    return try store.demoMarker()
                },
                load: { generator, making, _ in try generator.write(home: home.path, progress: making) },
                close: {}
            )
        case .postgresql(let settings):
            let store = try PostgresRecordStore(settings: settings)
            let server = settings.serverList
            return DemoLoader(
                place: "on \(server)",
                server: server,
                stagingFile: PathJoin.appending(DemoGenerator.stagingFileName, to: staging.path),
                marker: store.demoMarker,
                load: { generator, making, copying in
                    try generator.write(into: store, staging: staging.path, making: making, copying: copying)
                },
                close: store.close
            )
        }
    }
}
