import FHIRTestSupport
import Foundation
import Testing

@testable import WardRecords

@Test func open_createsRecordsFile0600_andRunsEveryMigration() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let store = try SQLiteRecordStore(home: home.path)
    defer { store.close() }
    var info = stat()
    #expect(stat(home.recordsPath, &info) == 0)
    #expect(info.st_mode & 0o777 == 0o600)
    let applied = try store.read { try SQLiteSchema.migrator.appliedIdentifiers($0) }
    #expect(
        applied == [
            SQLiteSchema.tablesMigration, SQLiteSchema.indexesMigration, SQLiteSchema.careRecordsMigration,
            SQLiteSchema.codeSystemsMigration, SQLiteSchema.nameWordsMigration, SQLiteSchema.namePrefixesMigration,
            SQLiteSchema.foldedNamesMigration, SQLiteSchema.siteUsersMigration, SQLiteSchema.liveSessionsMigration,
            SQLiteSchema.auditTrailMigration, SQLiteSchema.noteCorrectionsMigration, SQLiteSchema.patientCountMigration,
        ]
    )
    let tables: [String] = try store.read {
        try $0.fetchAll("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
    }
    for table in [
        "allergy", "encounter", "medication", "meta", "note", "observation", "observation_code", "patient",
        "patient_fts", "problem",
    ] {
        #expect(tables.contains(table))
    }
}

@Test func open_isIdempotent_andKeepsData() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    try SQLiteRecordStore(home: home.path).importing(
        Bundles.complete("p1", given: ["Ada"], family: "Lovelace", mrn: "M1")
    )
    let store = try SQLiteRecordStore(home: home.path)
    #expect(try store.chart(mrn: "M1").patient.family == "Lovelace")
}

@Test func open_refusesADatabaseFromANewerWard() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    try SQLiteRecordStore(home: home.path).close()
    let queue = try SQLiteConnection(path: home.recordsPath)
    try queue.write { try $0.execute("INSERT INTO grdb_migrations (identifier) VALUES ('99-from-the-future')") }
    queue.close()
    #expect(throws: StoreError.migrationFailed(path: home.recordsPath, reason: "it was written by a newer Ward")) {
        try SQLiteRecordStore(home: home.path)
    }
}

@Test func chart_roundTripsEverySection() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let store = try SQLiteRecordStore(home: home.path)
    try store.importing(Bundles.complete("p1", given: ["Ada", "Augusta"], family: "Lovelace", mrn: "M1"))
    let chart = try store.chart(mrn: "m1")  // MRNs are case-insensitive
    #expect(
        chart.patient
            == Patient(
                mrn: "M1",
                given: "Ada Augusta",
                family: "Lovelace",
                birthDate: "1970-03-04",
                sex: .female,
                phone: "555-0100",
                address: "1 Main St, Boston, MA 02108",
                restricted: false
            )
    )
    #expect(
        chart.allergies == [
            Allergy(
                substance: "Peanut",
                code: "256349002",
                criticality: "high",
                category: "food",
                status: "active",
                recorded: Date(timeIntervalSince1970: 981_158_400)
            )
        ]
    )
    #expect(chart.problems.map(\.display) == ["Diabetes"])
    #expect(chart.problems.first?.onset == Date(timeIntervalSince1970: 1_262_401_445))
    #expect(
        chart.medications == [
            Medication(
                code: "860975",
                display: "metformin",
                status: "active",
                dosage: "twice daily",
                authored: Date(timeIntervalSince1970: 1_262_401_445)
            )
        ]
    )
    #expect(chart.encounters.map(\.kind) == ["AMB"])
    #expect(chart.encounters.first?.end == Date(timeIntervalSince1970: 1_588_750_200))
    // Heart rate, and the blood-pressure panel as one row per component.
    #expect(chart.observations.map(\.code).sorted() == ["8462-4", "8480-6", "8867-4"])
    let heartRate = try #require(chart.observations.first { $0.code == "8867-4" })
    #expect(heartRate.value == 72 && heartRate.unit == "/min" && heartRate.category == .vitalSigns)
    #expect(heartRate.time == Date(timeIntervalSince1970: 1_588_766_889))  // 07:08:09-05:00
    #expect(chart.vitals.count == 3 && chart.labs.isEmpty)
}

@Test func chart_demographicsOnly_loadsNothingClinical() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let store = try SQLiteRecordStore(home: home.path)
    try store.importing(Bundles.complete("p1", given: ["Ada"], family: "Lovelace", mrn: "M1"))
    let chart = try store.chart(mrn: "M1", contents: .demographics)
    #expect(chart.patient.family == "Lovelace")
    #expect(chart.observations.isEmpty && chart.notes.isEmpty && chart.allergies.isEmpty)
}

@Test func chart_unknownMRN_throwsNoSuchPatient() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let store = try SQLiteRecordStore(home: home.path)
    #expect(throws: StoreError.noSuchPatient) { try store.chart(mrn: "NOPE") }
    #expect(try store.lookUp(mrn: "NOPE") == nil)
}

@Test func addNote_isStoredSignedAndTimed() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let store = try SQLiteRecordStore(home: home.path)
    try store.importing(Bundles.complete("p1", given: ["Ada"], family: "Lovelace", mrn: "M1"))
    let note = try store.addNote(
        mrn: "M1",
        author: "alice",
        text: "Seen today.",
        at: Date(timeIntervalSince1970: 1000.7)
    )
    #expect(note == Note(author: "alice", time: Date(timeIntervalSince1970: 1000), text: "Seen today.", id: note.id))
    #expect(note.id != nil && note.corrects == nil)
    #expect(try store.chart(mrn: "M1").notes == [note])
    #expect(throws: StoreError.noSuchPatient) {
        try store.addNote(mrn: "NOPE", author: "alice", text: "x", at: Date())
    }
}

@Test func aCorrection_isANewNoteNamingTheOne_itCorrects_whichStaysAsItWas() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let store = try SQLiteRecordStore(home: home.path)
    try store.importing(
        Bundles.complete("p1", given: ["Ada"], family: "Lovelace", mrn: "M1"),
        Bundles.complete("p2", given: ["Alan"], family: "Turing", mrn: "M2")
    )
    let original = try store.addNote(mrn: "M1", author: "alice", text: "Dose 50 mg.", at: Date())
    let other = try store.addNote(mrn: "M2", author: "alice", text: "Elsewhere.", at: Date())
    let correction = try store.addNote(
        mrn: "M1",
        author: "bob",
        text: "Dose 5 mg, not 50.",
        at: Date(),
        corrects: original.id
    )
    #expect(correction.corrects == original.id && correction.id != original.id)
    #expect(try store.chart(mrn: "M1").notes == [original, correction])
    // A note of another chart, or none, is not corrected here; nothing is added.
    for number in [other.id, 999_999] {
        #expect(throws: StoreError.noSuchNote) {
            try store.addNote(mrn: "M1", author: "bob", text: "x", at: Date(), corrects: number)
        }
    }
    #expect(try store.chart(mrn: "M1").notes.count == 2)
}

@Test func close_thenQueriesThrowClosed_andReopenRestores() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let store = try SQLiteRecordStore(home: home.path)
    try store.importing(Bundles.complete("p1", given: ["Ada"], family: "Lovelace", mrn: "M1"))
    store.wipe()
    store.close()  // idempotent
    #expect(throws: StoreError.closed) { try store.find("ada") }
    #expect(throws: StoreError.closed) { try store.chart(mrn: "M1") }
    try store.reopen()
    try store.reopen()  // idempotent
    #expect(try store.find("ada").matches.map(\.mrn) == ["M1"])
    store.releaseMemory()
    #expect(try store.chart(mrn: "M1").patient.given == "Ada")
}

@Test func read_keepsCachedStatementsCompiled_acrossReads() throws {
    // GRDB's `read` turned PRAGMA query_only on and off, which expires every prepared
    // statement: each `find` and `open` compiled its cached statements again.
    let home = TemporaryHome()
    defer { home.remove() }
    let store = try SQLiteRecordStore(home: home.path)
    try store.importing(Bundles.complete("p1", given: ["Ada"], family: "Lovelace", mrn: "M1"))
    let sql = "SELECT count(*) FROM patient WHERE id > ?"
    for _ in 0..<3 {
        #expect(try store.read { try $0.fetchOne(sql, [.integer(0)]) as Int? } == 1)
    }
    let recompiled = try store.read {
        try $0.statement(sql).recompilations
    }
    #expect(recompiled == 0)
}

@Test func lookUp_reportsRestricted_beforeAnythingClinicalLoads() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let store = try SQLiteRecordStore(home: home.path)
    try store.importing(
        Bundles.bundle([Bundles.patient("p9", given: ["Vera"], family: "Important", mrn: "VIP1", restricted: true)])
    )
    let match = try #require(try store.lookUp(mrn: "VIP1"))
    #expect(match.restricted)
    #expect(try store.chart(mrn: "VIP1").patient.restricted)
}

@Test func storeErrors_carryNoPatientData() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let store = try SQLiteRecordStore(home: home.path)
    do {
        _ = try store.chart(mrn: "Lovelace-1815")
        Issue.record("expected an error")
    } catch let error as StoreError {
        #expect(!error.description.contains("Lovelace"))
    }
}

@Test func observations_ofOnePatient_stayInThatPatientsIDRange_acrossImports() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let store = try SQLiteRecordStore(home: home.path)
    try store.importing(
        Bundles.complete("p1", given: ["Ada"], family: "Lovelace", mrn: "M1"),
        Bundles.complete("p2", given: ["Grace"], family: "Hopper", mrn: "M2")
    )
    // A later bundle adds to p1 after p2 was written: p1's rows must not collide with p2's.
    try store.importing(
        Bundles.bundle([Bundles.observation("p1", code: "8310-5", display: "Body temperature", value: 37, unit: "Cel")])
    )
    #expect(try store.chart(mrn: "M1").observations.count == 4)
    #expect(try store.chart(mrn: "M2").observations.count == 3)
}
