import FHIRTestSupport
import Foundation
import Glibc
import Testing

@testable import WardRecords

/// Import reads only regular files, and refuses a line or a field past its limit as the reader
/// reaches it, naming the file, the line and the field.
@Suite struct BoundedImportTests {
    private static var patient: [[String: Any]] {
        Bundles.everyKind("p1", given: ["Ada"], family: "Lovelace", mrn: "M1")
    }

    private func importing(_ paths: [String], in home: TemporaryHome) throws -> ImportReport {
        let store = try SQLiteRecordStore(home: home.path)
        defer { store.close() }
        return FHIRImporter(store: store).importBundles(at: paths)
    }

    @Test func aFIFO_aDeviceLink_andASocket_areRefusedAtOnce_with66() throws {
        let home = TemporaryHome()
        defer { home.remove() }
        let fifo = home.path + "/bundle.json"
        #expect(mkfifo(fifo, 0o600) == 0)
        let zero = home.path + "/Patient.ndjson"
        #expect(symlink("/dev/zero", zero) == 0)
        let report = try importing([fifo, zero], in: home)
        #expect(report.failures == [.notRegularFile(path: fifo), .notRegularFile(path: zero)])
        #expect(report.exitStatus == .noInput)
        #expect(report.failures.first?.description.contains("\(fifo) is not a regular file") == true)
    }

    @Test func aPatientWithoutIdOrMRN_whoseFullURLIsTooLongForAnMRN_isRefused() throws {
        let home = TemporaryHome()
        defer { home.remove() }
        let url = "https://records.example.org/fhir/Patient/" + String(repeating: "9", count: 40)
        let bundle: [String: Any] = [
            "resourceType": "Bundle", "type": "collection",
            "entry": [["fullUrl": url, "resource": ["resourceType": "Patient", "gender": "female"]]],
        ]
        let path = home.path + "/long.json"
        try JSONSerialization.data(withJSONObject: bundle).write(to: URL(fileURLWithPath: path))
        let report = try importing([path], in: home)
        #expect(report.exitStatus == .dataError)
        let message = report.failures.first?.description ?? ""
        #expect(message.contains("longer than an MRN may be (64 bytes)") && !message.contains(url))
    }

    @Test func aFIFOInADirectory_isRefused_notWaitedFor() throws {
        let home = TemporaryHome()
        defer { home.remove() }
        let directory = home.path + "/in"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        #expect(mkfifo(directory + "/a.json", 0o600) == 0)
        let report = try importing([directory], in: home)
        #expect(report.failures == [.notRegularFile(path: directory + "/a.json")])
    }

    @Test func aLineLongerThanTheLimit_isRefusedAtItsNumber_withoutReadingTheRest() throws {
        let home = TemporaryHome()
        defer { home.remove() }
        var lines = Bundles.ndjson(Self.patient)["Patient.ndjson"]!
        // A second line that never ends, longer than the limit.
        lines.append(Data(#"{"resourceType": "Patient", "id": ""#.utf8))
        lines.append(Data(repeating: UInt8(ascii: "a"), count: NDJSONLines.maximumLineLength + 10))
        let file = home.path + "/Patient.ndjson"
        try lines.write(to: URL(fileURLWithPath: file))
        let report = try importing([file], in: home)
        let lineNumber = lines.split(separator: UInt8(ascii: "\n")).count
        #expect(
            report.failures == [
                .malformedLine(
                    file: file,
                    line: lineNumber,
                    path: "(line)",
                    problem: "the line is longer than 16 MiB (16777216 bytes)"
                )
            ]
        )
        #expect(report.exitStatus == .dataError && report.patients == 0)
    }

    @Test func anIdLongerThan64Bytes_isRefused_namingTheField() throws {
        let home = TemporaryHome()
        defer { home.remove() }
        let line = #"{"resourceType": "Patient", "id": ""# + String(repeating: "x", count: 65) + "\"}\n"
        let file = home.path + "/Patient.ndjson"
        try Data(line.utf8).write(to: URL(fileURLWithPath: file))
        let report = try importing([file], in: home)
        #expect(
            report.failures == [
                .malformedLine(
                    file: file,
                    line: 1,
                    path: "id",
                    problem: "a string longer than 64 bytes, the limit for this field"
                )
            ]
        )
    }

    @Test func fieldLimits_areByTheKeysThatLeadToTheString() {
        #expect(FieldLimit.of(["entry", "resource", "id"]) == 64)
        #expect(FieldLimit.of(["entry", "resource", "identifier", "value"]) == 64)
        #expect(FieldLimit.of(["entry", "resource", "valueQuantity", "value"]) == 1 << 20)
        #expect(FieldLimit.of(["entry", "resource", "name", "family"]) == 1024)
        #expect(FieldLimit.of(["entry", "resource", "name", "text"]) == 1024)
        #expect(FieldLimit.of(["entry", "resource", "code", "text"]) == 1 << 20)
    }

    @Test func aStringPastTheTextLimit_inABundle_isRefusedAtItsPath() throws {
        let text = String(repeating: "z", count: (1 << 20) + 1)
        let json = #"{"resourceType": "Bundle", "entry": [{"resource": {"note": ""# + text + "\"}}]}"
        let reader = JSONStreamReader(data: Data(json.utf8), chunkSize: 4096)
        #expect {
            try BundleSource { reader }.forEachResource(firstPass: false) { _ in }
        } throws: { error in
            let problem = error as? FHIRProblem
            return problem?.path == "entry.resource.note"
                && problem?.problem == "a string longer than 1 MiB, the limit for this field"
        }
    }

    @Test func aNumberOfAThousandDigitsAndMore_isRefused() {
        let reader = JSONStreamReader(data: Data(String(repeating: "9", count: 2000).utf8))
        #expect(throws: FHIRProblem.self) { try reader.value() }
    }

    @Test func aResourceOfMoreThanAMillionValues_isRefused_beforeItIsBuilt() {
        let json = "[" + String(repeating: "0,", count: JSONStreamReader.maximumValueCount) + "0]"
        let reader = JSONStreamReader(data: Data(json.utf8))
        #expect {
            try reader.value()
        } throws: { error in
            (error as? FHIRProblem)?.problem == "more than 1048576 values in one resource"
        }
    }
}
