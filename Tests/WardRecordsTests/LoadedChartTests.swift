import Foundation
import Testing
import WardCore

@testable import WardRecords

private func sampleChart() -> LoadedChart {
    let time = Date(timeIntervalSince1970: 1_600_000_000)
    return LoadedChart(
        patient: Patient(mrn: "M1", given: "Canary", family: "Yellowbird", birthDate: "1970-01-01", sex: .female),
        allergies: [Allergy(substance: "Peanut")],
        problems: [Problem(code: "1", display: "Asthma")],
        medications: [Medication(code: "2", display: "albuterol")],
        observations: [
            Observation(
                code: "8867-4",
                display: "Heart rate",
                category: .vitalSigns,
                value: 70,
                unit: "/min",
                time: time
            ),
            Observation(code: "4548-4", display: "A1c", category: .laboratory, value: 6.1, unit: "%", time: time),
        ],
        encounters: [Encounter(kind: "AMB", display: "Check-up", start: time)],
        notes: [Note(author: "alice", time: time, text: "Seen.")]
    )
}

@Test func wipe_leavesNothingLoaded() {
    let chart = sampleChart()
    #expect(chart.vitals.count == 1 && chart.labs.count == 1)
    let wipeable: any Wipeable = chart
    wipeable.wipe()
    #expect(chart.isWiped)
    #expect(chart.patient == .empty && chart.mrn.isEmpty)
    #expect(chart.allergies.isEmpty && chart.problems.isEmpty && chart.medications.isEmpty)
    #expect(chart.observations.isEmpty && chart.encounters.isEmpty && chart.notes.isEmpty)
}

@Test func append_afterWipe_addsNothing() {
    let chart = sampleChart()
    chart.append(Note(author: "bob", time: Date(), text: "More."))
    #expect(chart.notes.count == 2)
    chart.wipe()
    chart.append(Note(author: "bob", time: Date(), text: "Too late."))
    #expect(chart.notes.isEmpty)
}

@Test func storeWipe_closesTheConnection() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let store: any RecordStore = try SQLiteRecordStore(home: home.path)
    store.wipe()
    #expect(throws: StoreError.closed) { try store.find("x") }
    try store.reopen()
    #expect(try store.find("x") == .none)
}
