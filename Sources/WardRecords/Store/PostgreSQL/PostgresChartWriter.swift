import FoundationEssentials
import PostgresNIO

extension PostgresRecordStore {
    /// Adds one patient with every entry of `chart`, in one transaction, and returns the
    /// patient's id. The first step of import and of the demo into PostgreSQL, and
    /// how a site copies charts from an embedded store into a shared one.
    ///
    /// - Throws: `StoreError.database` (a clash on the MRN is SQLSTATE 23505); nothing is written then.
    @discardableResult
    public func add(_ chart: LoadedChart, fhirID: String? = nil) throws -> Int64 {
        guard !isLocked else { throw StoreError.closed }
        return try link.transaction { try write(chart, fhirID: fhirID) }
    }

    /// Sets a `meta` value (`demo.seed`, `demo.patients`…).
    public func setMeta(_ key: String, _ value: String) throws {
        try rows(
            """
            INSERT INTO meta (key, value) VALUES (\(key), \(value))
            ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value
            """
        )
    }

    private func write(_ chart: LoadedChart, fhirID: String?) throws -> Int64 {
        let id = try link.insertPatient(chart.patient, fhirID: fhirID)
        for a in chart.allergies {
            try rows(
                """
                INSERT INTO allergy (patient_id, substance, code, criticality, category, status, recorded, system)
                VALUES (\(id), \(a.substance), \(a.code), \(a.criticality), \(a.category), \(a.status),
                    \(seconds(a.recorded)), \(a.system))
                """
            )
        }
        for x in chart.problems {
            try rows(
                """
                INSERT INTO problem (patient_id, code, display, status, onset, abated, system)
                VALUES (\(id), \(x.code), \(x.display), \(x.status), \(seconds(x.onset)), \(seconds(x.abated)), \(x.system))
                """
            )
        }
        for m in chart.medications {
            try rows(
                """
                INSERT INTO medication (patient_id, code, display, status, dosage, authored, system)
                VALUES (\(id), \(m.code), \(m.display), \(m.status), \(m.dosage), \(seconds(m.authored)), \(m.system))
                """
            )
        }
        let firstObservation = RecordsLayout.observationIDs(patient: id).lowerBound
        for (n, o) in chart.observations.enumerated() {
            let code = try rows(
                """
                INSERT INTO observation_code (code, display, unit, category, system)
                VALUES (\(o.code), \(o.display), \(o.unit), \(o.category.rawValue), \(o.system))
                ON CONFLICT (code, display, unit, category) DO UPDATE SET code = EXCLUDED.code
                RETURNING id
                """
            )
            let codeID = try PostgresLink.decoded { try code.first!.decode(Int64.self) }
            try rows(
                """
                INSERT INTO observation (id, code_id, value, text, time)
                VALUES (\(firstObservation + Int64(n)), \(codeID), \(o.value), \(o.text), \(seconds(o.time)))
                """
            )
        }
        for e in chart.encounters {
            try rows(
                #"""
                INSERT INTO encounter (patient_id, kind, display, reason, start, "end")
                VALUES (\#(id), \#(e.kind), \#(e.display), \#(e.reason), \#(seconds(e.start)), \#(seconds(e.end)))
                """#
            )
        }
        for note in chart.notes {
            try rows(
                "INSERT INTO note (patient_id, author, time, text) VALUES (\(id), \(note.author), \(seconds(note.time)), \(note.text))"
            )
        }
        for i in chart.immunizations {
            try rows(
                """
                INSERT INTO immunization (patient_id, code, vaccine, status, date, system)
                VALUES (\(id), \(i.code), \(i.vaccine), \(i.status), \(seconds(i.date)), \(i.system))
                """
            )
        }
        for x in chart.procedures {
            try rows(
                """
                INSERT INTO procedure (patient_id, code, display, reason, status, performed, system)
                VALUES (\(id), \(x.code), \(x.display), \(x.reason), \(x.status), \(seconds(x.performed)), \(x.system))
                """
            )
        }
        for c in chart.carePlans {
            try rows(
                #"""
                INSERT INTO care_plan (patient_id, category, activities, status, start, "end")
                VALUES (\#(id), \#(c.category), \#(RecordsLayout.listText(c.activities)), \#(c.status),
                    \#(seconds(c.start)), \#(seconds(c.end)))
                """#
            )
        }
        for r in chart.reports {
            try rows(
                """
                INSERT INTO diagnostic_report (patient_id, code, name, status, date, results, conclusion, system, presented_form)
                VALUES (\(id), \(r.code), \(r.name), \(r.status), \(seconds(r.date)), \(RecordsLayout.resultsText(r.results)),
                    \(r.conclusion), \(r.system), \(r.presentedForm))
                """
            )
        }
        return id
    }
}

/// Unix seconds, as the records store times: rounded down, as SQLite's writers store them.
private func seconds(_ date: Date?) -> Int64? {
    date.map { Int64($0.timeIntervalSince1970.rounded(.down)) }
}

private func seconds(_ date: Date) -> Int64 {
    Int64(date.timeIntervalSince1970.rounded(.down))
}
