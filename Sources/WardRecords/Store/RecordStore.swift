import FoundationEssentials
import WardCore

/// The patient records, as the shell sees them.
///
/// A protocol so that either store stands behind the shell without the shell changing:
/// `SQLiteRecordStore`, the home's own file, or `PostgresRecordStore`, one database that the
/// Wards of several hosts share (`[records]` in the site file).
///
/// A store is a `Wipeable`: on lock the session calls `wipe()`, which drops the connection and
/// with it every cached page of patient data; after the user signs on again the shell calls
/// `reopen()`. Between the two every query throws `StoreError.closed`.
///
/// - Important: not `Sendable`. A store belongs to the loop thread, like the charts it loads.
public protocol RecordStore: Wipeable {
    /// Patients whose names start with the words of `text` (in any order), or whose MRN is `text`;
    /// best matches first, at most `limit` of them.
    func find(_ text: String, limit: Int) throws -> SearchResult

    /// The find row for one MRN, or nil: lets `open` see whether a chart is restricted (and ask
    /// for a reason) before loading anything clinical.
    func lookUp(mrn: String) throws -> PatientMatch?

    /// The find rows of the patients whose MRN starts with `prefix` (ignoring ASCII case, as MRNs
    /// are compared), in MRN order, at most `limit`; `total` counts them up to a cap. One range
    /// scan of the MRN index, so a prefix costs the same among a million patients as among ten.
    func patients(mrnStartingWith prefix: String, limit: Int) throws -> SearchResult

    /// One patient's chart. `.demographics` loads the patient only (what a clerk may see).
    /// Throws `StoreError.noSuchPatient` for an unknown MRN.
    func chart(mrn: String, contents: ChartContents) throws -> LoadedChart

    /// Saves a note on a patient's chart, signed by `author` and timed `time` (to the second),
    /// and returns it as stored. With `corrects`, the note is a correction of that note, which
    /// must be of the same chart (`StoreError.noSuchNote` otherwise) and stays as it was: notes
    /// are only ever added.
    func addNote(mrn: String, author: String, text: String, at time: Date, corrects: Int64?) throws -> Note

    /// How the home's records were made: non-nil for a `ward demo` home, so the shell can say
    /// that the patients are synthetic.
    func demoMarker() throws -> DemoMarker?

    /// How many patients the home holds, exactly.
    func patientCount() throws -> Int

    /// How many patients the home holds, for the sign-on banner: exact where the store keeps the
    /// count, estimated where only a scan of every patient would give it (PostgreSQL), so that
    /// signing on costs the same among a million patients as among ten.
    func patientsAtSignOn() throws -> PatientCount

    /// Gives back the database's page cache without closing (cheaper than `close()`, weaker: an
    /// allocator may keep pages aside). Safe to call at any time.
    func releaseMemory()

    /// Closes the connection, releasing every cached page. Never fails; idempotent.
    func close()

    /// Opens the connection again after `close()`; does nothing if it is open.
    func reopen() throws

    /// Makes the statement running now fail at once (SQLite's `sqlite3_interrupt`).
    ///
    /// - Important: The one method that may be called from any thread: the termination watchdog
    ///   calls it (through `CommandInterruption`) while the loop's thread waits on a query, so
    ///   SIGTERM ends Ward within a second. Does nothing when no statement runs.
    func interrupt()
}

extension RecordStore {
    /// The lock's part: close, so no page of patient data stays in SQLite's cache.
    public func wipe() { close() }

    public func find(_ text: String) throws -> SearchResult { try find(text, limit: 50) }

    public func patientsAtSignOn() throws -> PatientCount { .exactly(try patientCount()) }

    public func chart(mrn: String) throws -> LoadedChart { try chart(mrn: mrn, contents: .full) }

    /// A note of its own, correcting none.
    public func addNote(mrn: String, author: String, text: String, at time: Date) throws -> Note {
        try addNote(mrn: mrn, author: author, text: text, at: time, corrects: nil)
    }
}

/// How much of a chart to load: the role rules say a clerk sees demographics only, and what is
/// never loaded never needs wiping.
public enum ChartContents: Sendable {
    case demographics
    case full
}

/// The marker `ward demo` leaves in a home it made.
public struct DemoMarker: Sendable, Equatable {
    public var seed: UInt64
    public var patients: Int

    public init(seed: UInt64, patients: Int) {
        self.seed = seed
        self.patients = patients
    }

    /// The statement that reads the marker's rows from the `meta` table, the same on every store.
    static let metaQuery = "SELECT key, value FROM meta WHERE key IN ('demo.seed', 'demo.patients')"

    /// The marker in the `meta` rows that `metaQuery` reads (key, value); nil when they are not
    /// both there.
    init?(meta rows: [(String, String)]) {
        let values = Dictionary(rows, uniquingKeysWith: { _, last in last })
        guard let seed = values["demo.seed"].flatMap(UInt64.init),
            let count = values["demo.patients"].flatMap(Int.init)
        else { return nil }
        self.init(seed: seed, patients: count)
    }
}

/// What a home holds, as the sign-on banner says it: synthetic patients are called so only when
/// every patient in the home is one (a demo home into which real records were imported is not
/// demo data any more).
public enum HomeContents {
    /// `1 patient`, `2 patients`.
    public static func patients(_ count: Int) -> String { count == 1 ? "1 patient" : "\(count) patients" }

    /// The banner's line for a count or an estimate (`RecordStore.patientsAtSignOn`).
    ///
    /// An estimate never calls the home demo data: a few imported patients hide in its rounding,
    /// and "none of them is a real person" must not be said of a home that holds one.
    public static func banner(_ count: PatientCount, demo: DemoMarker?) -> String? {
        switch count {
        case .exactly(let count): return banner(patients: count, demo: demo)
        case .about(let estimate):
            guard estimate > 0 else { return nil }
            guard let demo else { return "This Ward home holds about \(estimate) patients." }
            return "This Ward home holds about \(estimate) patients, \(demo.patients) of them loaded as "
                + "synthetic demo data (seed \(demo.seed))."
        }
    }

    /// The banner's line, or nil for an empty home (the shell says so when a command needs records).
    public static func banner(patients count: Int, demo: DemoMarker?) -> String? {
        guard count > 0 else { return nil }
        guard let demo else { return "This Ward home holds \(patients(count))." }
        if count <= demo.patients {
            return "Demo data: \(count) synthetic \(count == 1 ? "patient" : "patients") (seed \(demo.seed)). "
                + "None of them is a real person."
        }
        return "This Ward home holds \(patients(count)): \(demo.patients) synthetic (seed \(demo.seed)), "
            + "the other \(count - demo.patients) imported."
    }
}
