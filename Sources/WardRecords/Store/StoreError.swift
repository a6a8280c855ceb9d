import WardCore

/// Why the records store or one of its loaders failed.
///
/// - Important: no case carries a patient field other than identifiers. A file, a JSON path, an
///   MRN count or an SQLite result code may appear in a message, and an import clash names the
///   FHIR ids and the MRN a clerk needs to sort it out (quoted escaped: they are hostile text);
///   a name, a birth date or a note never does, because these messages reach stderr, logs and
///   audit records.
public enum StoreError: WardError, Equatable, Sendable {
    /// The records database could not be opened or created at this path.
    case cannotOpen(path: String, reason: String)
    /// The database is newer than this Ward, or its schema could not be brought up to date.
    case migrationFailed(path: String, reason: String)
    /// The records server (PostgreSQL) cannot be reached or refused the connection. `server` is
    /// the host and port (or socket) from the site file; `reason` is Ward's own words, never the
    /// driver's text.
    case unavailable(server: String, reason: String)
    /// The store was used after `close()` and before `reopen()` (the session is locked).
    case closed
    /// No patient has this MRN. The MRN itself is not repeated: it came from the user.
    case noSuchPatient
    /// The chart holds no note of this number, for a correction: the number is the user's.
    case noSuchNote
    /// A query or a write failed inside SQLite.
    case database(reason: String)
    /// An import input (file or directory) does not exist or cannot be read.
    case unreadable(path: String)
    /// An import input is a FIFO, a device or a socket (or a link to one): only regular files are
    /// read, since such a file may never end (`/dev/zero`) or never start (a FIFO nobody writes).
    case notRegularFile(path: String)
    /// A FHIR bundle is malformed: `path` is the JSON path of the first offending value.
    case malformedBundle(file: String, path: String, problem: String)
    /// A line of an NDJSON export is malformed: `path` is the JSON path inside the line's resource.
    case malformedLine(file: String, line: Int, path: String, problem: String)
    /// A directory holds neither FHIR bundles (`*.json`) nor NDJSON files (`*.ndjson`, `*.ndjson.gz`).
    case nothingToImport(path: String)
    /// An NDJSON export's Patient would overwrite or merge another patient (`file` names the
    /// line when the clash is within the export); nothing of the export was imported.
    case patientClashInExport(file: String, clash: PatientClash)
    /// The database refused an NDJSON export's rows, as `bundleConflict` a bundle's.
    case exportConflict(file: String, constraint: String)
    /// The home already holds records; the demo generator writes only into an empty home.
    case alreadyHasRecords(path: String)
    /// The shared records database (PostgreSQL) on `server` already holds records; `ward demo`
    /// loads only an empty one.
    case databaseHasRecords(server: String)
    /// A bundle's Patient would overwrite or merge another patient; nothing of it was imported.
    case patientClash(file: String, clash: PatientClash)
    /// The database refused a bundle's rows (a uniqueness or reference rule); `constraint` is
    /// SQLite's message, which names a table and a column, never a value.
    case bundleConflict(file: String, constraint: String)

    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason):
            return "cannot open the records database \(path): \(reason)"
        case .migrationFailed(let path, let reason):
            return "cannot update the records database \(path): \(reason)"
        case .unavailable(let server, let reason):
            return "cannot reach the records server \(server): \(reason)"
        case .closed:
            return "the records store is closed while the session is locked; sign on again"
        case .noSuchPatient:
            return "no patient has that MRN; use 'find' to look it up"
        case .noSuchNote:
            return "this chart has no note of that number; 'show notes --all' lists them"
        case .database(let reason):
            return "records database error: \(reason)"
        case .unreadable(let path):
            return "\(path): no such file or directory, or not readable"
        case .notRegularFile(let path):
            return "\(path) is not a regular file (a FIFO, a device or a socket); only regular files are imported"
        case .malformedBundle(let file, let path, let problem):
            return "\(file): \(path): \(problem); nothing of this bundle was imported"
        case .malformedLine(let file, let line, let path, let problem):
            return "\(file):\(line): \(path): \(problem); nothing of this export was imported"
        case .nothingToImport(let path):
            return "\(path): no FHIR bundle (*.json) or bulk-data NDJSON file (*.ndjson, *.ndjson.gz) to import"
        case .patientClashInExport(let file, let clash):
            return "\(file): \(clash); nothing of this export was imported"
        case .exportConflict(let file, let constraint):
            return "\(file): the export conflicts with the stored records (\(constraint)); "
                + "nothing of this export was imported"
        case .alreadyHasRecords(let path):
            return "\(path) already holds records; choose an empty home with --home"
        case .databaseHasRecords(let server):
            return "the records database on \(server) already holds records; 'ward demo' loads only an empty one"
        case .patientClash(let file, let clash):
            return "\(file): \(clash); nothing of this bundle was imported"
        case .bundleConflict(let file, let constraint):
            return "\(file): the bundle conflicts with the stored records (\(constraint)); "
                + "nothing of this bundle was imported"
        }
    }

    /// The status a command that stops on this error exits with.
    public var exitStatus: ExitStatus {
        switch self {
        case .cannotOpen, .migrationFailed: .configuration  // the home is not usable
        case .unavailable: ExitStatus(rawValue: 69)  // EX_UNAVAILABLE
        case .closed: .lockedOut
        case .noSuchPatient, .noSuchNote, .database: .failure
        case .unreadable, .notRegularFile, .nothingToImport: .noInput
        case .malformedBundle, .malformedLine, .patientClash, .bundleConflict, .patientClashInExport, .exportConflict:
            .dataError
        case .alreadyHasRecords, .databaseHasRecords: .cannotCreate
        }
    }
}
