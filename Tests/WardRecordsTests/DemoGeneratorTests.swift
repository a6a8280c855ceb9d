import FHIRTestSupport
import Foundation
import Testing
import WardCore

@testable import WardRecords

/// Every row of every table, in order: two homes are the same when these are equal.
private func dump(_ path: String) throws -> [String] {
    let db = try SQLiteConnection(path: path)
    defer { db.close() }
    var lines: [String] = []
    for table in [
        "meta", "patient", "allergy", "problem", "medication", "observation_code", "observation", "encounter",
        "note",
    ] {
        try db.eachRow("SELECT * FROM \(table) ORDER BY 1", [] as [SQLiteValue]) { row in
            let columns = (0..<row.columnCount).map { row.optionalText($0) ?? "NULL" }
            lines.append(table + " " + columns.joined(separator: "|"))
        }
    }
    return lines
}

@Test func demo_sameSeed_sameHome_otherSeed_otherHome() throws {
    let (a, b, c) = (TemporaryHome(), TemporaryHome(), TemporaryHome())
    defer { for home in [a, b, c] { home.remove() } }
    try DemoGenerator(seed: 7, patients: 300).write(home: a.path)
    try DemoGenerator(seed: 7, patients: 300).write(home: b.path)
    try DemoGenerator(seed: 8, patients: 300).write(home: c.path)
    let first = try dump(a.recordsPath)
    #expect(first.count > 300)
    #expect(first == (try dump(b.recordsPath)))
    #expect(first != (try dump(c.recordsPath)))
}

@Test func demo_patientDoesNotDependOnHowManyFollow() throws {
    let (small, large) = (TemporaryHome(), TemporaryHome())
    defer { for home in [small, large] { home.remove() } }
    try DemoGenerator(seed: 3, patients: 10).write(home: small.path)
    try DemoGenerator(seed: 3, patients: 40).write(home: large.path)
    let one = try SQLiteRecordStore(home: small.path).chart(mrn: DemoGenerator.mrn(index: 9))
    let other = try SQLiteRecordStore(home: large.path).chart(mrn: DemoGenerator.mrn(index: 9))
    #expect(one.patient == other.patient)
    #expect(one.observations == other.observations)
    #expect(one.notes == other.notes)
}

@Test func demo_marksTheHome_andIsSearchable_andVaried() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    var progress: [Int] = []
    try DemoGenerator(seed: 1, patients: 12_000).write(home: home.path) { done, total in
        progress.append(done)
        #expect(total == 12_000)
    }
    #expect(progress == [5000, 10_000, 12_000])
    #expect(!FileManager.default.fileExists(atPath: home.recordsPath + ".partial"))
    let store = try SQLiteRecordStore(home: home.path)
    #expect(try store.demoMarker() == DemoMarker(seed: 1, patients: 12_000))
    #expect(try store.patientCount() == 12_000)
    #expect(try store.find("smith").total > 10)
    #expect(try store.find(DemoGenerator.mrn(index: 41)).matches.first?.mrn == "W0000042")
    let counts: [Int] = try store.read {
        try $0.fetchAll(
            """
            SELECT count(o.id) FROM patient p
            LEFT JOIN observation o ON o.id BETWEEN p.id << 20 AND (p.id << 20) + 1048575 GROUP BY p.id
            """
        )
    }.sorted()
    #expect(counts.count == 12_000)
    #expect(counts[counts.count / 2] < 30)  // most patients: a few entries
    #expect(counts.last! >= 100)  // some: hundreds of observations
    let restricted: Int? = try store.read { try $0.fetchOne("SELECT count(*) FROM patient WHERE restricted") }
    #expect((10...150).contains(restricted ?? 0))
    let labs: Int? = try store.read {
        try $0.fetchOne(
            "SELECT count(*) FROM observation o JOIN observation_code c ON c.id = o.code_id WHERE c.category = 'laboratory'"
        )
    }
    #expect(labs ?? 0 > 0)
}

@Test func demo_refusesAHomeWithRecords() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    try SQLiteRecordStore(home: home.path).importing(Bundles.complete("p1", given: ["Ada"], family: "Lovelace"))
    #expect(throws: StoreError.alreadyHasRecords(path: home.recordsPath)) {
        try DemoGenerator(seed: 1, patients: 5).write(home: home.path)
    }
}

@Test func seededGenerator_isStable() {
    var rng = SeededGenerator(seed: 42, stream: 0)
    let first = (0..<4).map { _ in rng.next() }
    var again = SeededGenerator(seed: 42, stream: 0)
    #expect(first == (0..<4).map { _ in again.next() })
    var other = SeededGenerator(seed: 42, stream: 1)
    #expect(first != (0..<4).map { _ in other.next() })
    for _ in 0..<1000 {
        #expect((3...5).contains(rng.int(in: 3...5)))
        #expect((0..<1).contains(rng.unit()))
    }
}

@Test func civilDate_roundTrips() {
    #expect(CivilDate.string(days: 0) == "1970-01-01")
    #expect(CivilDate.string(days: -1) == "1969-12-31")
    #expect(CivilDate.string(days: 20089) == "2025-01-01")
    for days in stride(from: -40_000, to: 40_000, by: 997) {
        let parts = CivilDate.string(days: days).split(separator: "-").map { Int($0)! }
        #expect(CivilDate.days(year: parts[0], month: parts[1], day: parts[2]) == days)
    }
}
