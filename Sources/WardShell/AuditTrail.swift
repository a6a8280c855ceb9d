import WardCore

/// The site's audit trail as the shell's `audit` reads it. The executable gives it, since it
/// knows where the trail is (the site's audit log with its rotated files) and how
/// `ward audit show` and `ward audit report` answer; a shell without one (a test's) says so.
public protocol AuditTrail: Sendable {
    /// The answer to `question`. `patientName` gives a report's patient's name from the records
    /// the session reads, nil when they do not hold it. Throws an error whose description says
    /// what to change (an unknown action, an MRN that several start with).
    func answer(_ question: AuditQuestion, patientName: (String) -> String?) throws -> AuditAnswer
}

/// The trail's answer, as it was written: the shell sanitizes it once as it shows it, and lays
/// the table out in the session's format (text, JSON or CSV).
public struct AuditAnswer: Sendable, Equatable {
    /// A line above the table (a report's patient, named by name and MRN), nil for none.
    public var title: String?
    public var headers: [String]
    public var rows: [[String]]
    /// What the reader should know of the answer (a user or MRN no record names).
    public var warnings: [String]
    /// Every field of each record, when the answer is records: what CSV and JSON write (as
    /// `ward audit show --format csv` does), where text shows `headers` and `rows`. Nil: CSV
    /// and JSON write the table as text shows it (a report, counts).
    public var fields: Fields?

    /// The records' fields: their names in the order they first appear, and each record's
    /// values under them (empty where a record has no such field).
    public struct Fields: Sendable, Equatable {
        public var keys: [String]
        public var rows: [[String]]

        public init(keys: [String], rows: [[String]]) {
            self.keys = keys
            self.rows = rows
        }
    }

    public init(
        title: String? = nil,
        headers: [String],
        rows: [[String]],
        warnings: [String] = [],
        fields: Fields? = nil
    ) {
        self.title = title
        self.headers = headers
        self.rows = rows
        self.warnings = warnings
        self.fields = fields
    }
}

/// What `audit` was asked, as typed: the same filters as `ward audit show`, or `audit report MRN`.
public struct AuditQuestion: Sendable, Equatable {
    /// The accounting of one patient's record (`audit report MRN`), nil for the records that match.
    public var reportMRN: String?
    /// Each repeatable filter: its values are alternatives; the filters combine.
    public var users: [String] = []
    public var mrns: [String] = []
    public var actions: [String] = []
    public var outcomes: [String] = []
    public var kinds: [String] = []
    public var since: String?
    public var until: String?
    /// `user`, `mrn`, `action`, `day` or `outcome`: counts instead of records.
    public var countBy: String?

    public init(reportMRN: String? = nil) {
        self.reportMRN = reportMRN
    }
}

extension AuditQuestion: CustomStringConvertible {
    /// The question as the record of its reading gives it: `report MRN`, then each filter.
    public var description: String {
        var words = reportMRN.map { ["report", $0] } ?? []
        for (name, values) in [
            ("user", users), ("mrn", mrns), ("action", actions), ("outcome", outcomes), ("kind", kinds),
        ] {
            for value in values { words += ["--\(name)", value] }
        }
        for (name, value) in [("since", since), ("until", until), ("count-by", countBy)] {
            if let value { words += ["--\(name)", value] }
        }
        return words.joined(separator: " ")
    }
}
