import Testing

@testable import WardRecords

@Test func malformedBundle_namesFileAndPath_andExits65() {
    let error = StoreError.malformedBundle(
        file: "b.json",
        path: "entry[3].resource.subject.reference",
        problem: "does not resolve"
    )
    #expect(
        error.description
            == "b.json: entry[3].resource.subject.reference: does not resolve; nothing of this bundle was imported"
    )
    #expect(error.exitStatus == .dataError)
}
