import FoundationEssentials

/// What both stores' tables share, whatever the database: how observations are numbered and
/// how list and result columns are written.
///
/// Observations are most of the rows (tens of millions in a million-patient demo), so their ids
/// are patient-major instead of indexed: `id = patient_id << observationIDBits | n`. A chart's
/// observations are then one contiguous range of the table, read without an index, and the
/// index that a `patient_id` column would need (a third of the file) does not exist. A patient
/// may have up to 2^20 (about a million) observations.
enum RecordsLayout {
    static let observationIDBits: Int64 = 20

    /// The ids a patient's observations may take: a range of the observation table.
    static func observationIDs(patient: Int64) -> ClosedRange<Int64> {
        (patient << observationIDBits)...((patient << observationIDBits) | ((1 << observationIDBits) - 1))
    }

    /// The tables of imported entries, one row per entry and a `patient_id`: what a re-import
    /// of a patient replaces. Observations are not among them (see `observationIDs`); notes are
    /// written in Ward and kept.
    static let importedTables = [
        "allergy", "problem", "medication", "encounter", "immunization", "procedure", "care_plan",
        "diagnostic_report",
    ]

    /// A list of names as the text a list column holds: a JSON array of strings.
    static func listText(_ items: [String]) -> String {
        guard let data = try? JSONEncoder().encode(items) else { return "[]" }
        return String(decoding: data, as: UTF8.self)
    }

    /// A report's results as its `results` column holds them (`ReportResult`'s JSON).
    static func resultsText(_ results: [ReportResult]) -> String {
        guard let data = try? JSONEncoder().encode(results) else { return "[]" }
        return String(decoding: data, as: UTF8.self)
    }

    /// The results a `results` column holds; empty for text that is not such an array.
    static func results(_ text: String) -> [ReportResult] {
        (try? JSONDecoder().decode([ReportResult].self, from: Data(text.utf8))) ?? []
    }

    /// The names a list column holds; empty for text that is not a JSON array of strings.
    static func list(_ text: String) -> [String] {
        (try? JSONDecoder().decode([String].self, from: Data(text.utf8))) ?? []
    }
}
