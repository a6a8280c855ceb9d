import PostgresNIO

/// `BundleWriter`'s statements on the shared database, inside the importer's transaction.
///
/// Lookups, patients and observation codes are statements of their own, answered at once;
/// entries are gathered per table as COPY text and sent with one `COPY` per table when a chunk
/// is full and at `finish()`, so a bundle of thousands of entries costs a few round trips, not
/// one per entry. Nothing that is read back is gathered: every lookup reads patients and
/// codes, which go at once, and a patient's first observation id is read before any of that
/// patient's observations of the bundle.
///
/// PostgreSQL's text cannot hold U+0000, which SQLite's can: such a value fails its bundle
/// as malformed, naming the resource, rather than being cut.
final class PostgresImportTarget: ImportTarget {
    let link: PostgresLink
    private var pending: [ImportRow.Table: CopyText] = [:]

    init(link: PostgresLink) {
        self.link = link
    }

    func patient(mrn: String) throws -> (id: Int64, fhirID: String?)? {
        let rows = try link.query(
            #"SELECT id, fhir_id FROM patient WHERE lower(mrn) COLLATE "C" = \#(mrn.lowercased(ascii: true))"#
        )
        return try PostgresLink.decoded { try rows.first.map { try $0.decode((Int64, String?).self) } }
    }

    func mrn(fhirID: String) throws -> String? {
        let rows = try link.query("SELECT mrn FROM patient WHERE fhir_id = \(fhirID) ORDER BY id LIMIT 1")
        return try PostgresLink.decoded { try rows.first?.decode(String.self) }
    }

    func patientID(fhirID: String) throws -> Int64? {
        let rows = try link.query("SELECT id FROM patient WHERE fhir_id = \(fhirID) ORDER BY id LIMIT 1")
        return try PostgresLink.decoded { try rows.first?.decode(Int64.self) }
    }

    func insert(_ imported: FHIRBundle.ImportedPatient) throws -> Int64 {
        try Self.refuseNUL(imported)
        return try link.insertPatient(imported.patient, fhirID: imported.fhirID)
    }

    func refresh(_ id: Int64, with imported: FHIRBundle.ImportedPatient) throws {
        try Self.refuseNUL(imported)
        for table in RecordsLayout.importedTables + ["patient_name_token"] {
            try link.query(PostgresQuery(unsafeSQL: "DELETE FROM \(table) WHERE patient_id = $1", binds: binds(id)))
        }
        let observations = RecordsLayout.observationIDs(patient: id)
        try link.query(
            "DELETE FROM observation WHERE id BETWEEN \(observations.lowerBound) AND \(observations.upperBound)"
        )
        try link.updatePatient(id, to: imported.patient, fhirID: imported.fhirID)
    }

    func lastObservationID(in range: ClosedRange<Int64>) throws -> Int64? {
        let rows = try link.query(
            "SELECT max(id) FROM observation WHERE id BETWEEN \(range.lowerBound) AND \(range.upperBound)"
        )
        return try PostgresLink.decoded { try rows.first?.decode(Int64?.self) }
    }

    func codeID(_ observation: Observation) throws -> Int64 {
        for text in [observation.code, observation.display, observation.unit, observation.system] {
            try Self.refuseNUL(text, path: "Observation")
        }
        let (code, display, unit, category) = (
            observation.code, observation.display, observation.unit, observation.category.rawValue
        )
        try link.query(
            """
            INSERT INTO observation_code (code, display, unit, category, system)
            VALUES (\(code), \(display), \(unit), \(category), \(observation.system))
            ON CONFLICT (code, display, unit, category) DO NOTHING
            """
        )
        let rows = try link.query(
            """
            SELECT id FROM observation_code
            WHERE code = \(code) AND display = \(display) AND unit = \(unit) AND category = \(category)
            """
        )
        return try PostgresLink.decoded { try rows.first!.decode(Int64.self) }
    }

    func add(_ row: ImportRow) throws {
        var text = pending[row.table] ?? CopyText()
        for (index, value) in row.values.enumerated() {
            let first = index == 0
            switch value {
            case .text(let string), .optionalText(let string?):
                try Self.refuseNUL(string, path: row.table.name)
                try text.appendColumn(string, first: first)
            case .optionalText(nil), .integer(nil), .real(nil):
                text.appendNull(first: first)
            case .integer(let number?):
                text.appendColumn(number, first: first)
            case .real(let number?):
                text.appendColumn(number, first: first)
            }
        }
        text.endRow()
        if text.isFull {
            pending[row.table] = nil
            try send(text, into: row.table)
        } else {
            pending[row.table] = text
        }
    }

    func finish() throws {
        let tables = pending
        pending = [:]
        for (table, text) in tables { try send(text, into: table) }
    }

    private func send(_ text: CopyText, into table: ImportRow.Table) throws {
        var text = text
        let chunk = text.take()
        try link.copy(into: table.name, columns: table.columns) { send in try send(chunk) }
    }

    private func binds(_ id: Int64) -> PostgresBindings {
        var binds = PostgresBindings()
        binds.append(id)
        return binds
    }

    private static func refuseNUL(_ imported: FHIRBundle.ImportedPatient) throws {
        let p = imported.patient
        for text in [p.mrn, imported.fhirID, p.given, p.family, p.birthDate, p.phone, p.address] {
            try refuseNUL(text, path: "Patient")
        }
    }

    private static func refuseNUL(_ text: String, path: String) throws {
        if text.utf8.contains(0) {
            throw FHIRProblem(path: path, problem: "holds U+0000, which the records server (PostgreSQL) cannot store")
        }
    }
}
