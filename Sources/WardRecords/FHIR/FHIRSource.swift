import FoundationEssentials
import Glibc

/// Where an import's resources come from: a bundle's `entry` array, or the lines of a bulk-data
/// NDJSON export. `FHIRBundle` reads either the same way, in two passes.
protocol FHIRSource {
    /// Hands every resource to `body`, in the order of the input. In the first pass a resource
    /// is built only as far as `FHIRBundle.firstPassResource` needs; in the second, whole.
    func forEachResource(firstPass: Bool, _ body: (FHIRSourceEntry) throws -> Void) throws
}

/// One resource as a source yields it.
struct FHIRSourceEntry {
    /// The resource, at its JSON path (`entry[3].resource` in a bundle, the root on an NDJSON line).
    let resource: JSONCursor
    /// The bundle entry's `fullUrl`; nil on an NDJSON line, which has none.
    let fullURL: String?
    /// Where `fullUrl` is, for an error about it.
    let fullURLPath: String
}

/// A FHIR bundle file or buffer: one JSON object whose `entry` array holds the resources.
struct BundleSource: FHIRSource {
    /// A fresh reader at the start of the bundle, for each pass.
    let open: () throws -> JSONStreamReader

    func forEachResource(firstPass: Bool, _ body: (FHIRSourceEntry) throws -> Void) throws {
        let reader = try open()
        guard try reader.peekSignificant() == UInt8(ascii: "{") else {
            throw FHIRProblem(path: "(root)", problem: "expected a FHIR Bundle object")
        }
        var type: String?
        var sawEntry = false
        try reader.readObject { key in
            switch key {
            case "resourceType":
                guard type == nil else { throw FHIRProblem(path: "resourceType", problem: "written twice") }
                guard case .string(let value) = try reader.value(), value == "Bundle" else {
                    throw FHIRProblem(path: "resourceType", problem: "expected \"Bundle\"")
                }
                type = value
            case "entry":
                guard !sawEntry else { throw FHIRProblem(path: "entry", problem: "written twice") }
                sawEntry = true
                if try reader.peekSignificant() == UInt8(ascii: "n") {
                    try reader.skipValue()  // null: no entries
                    return
                }
                guard try reader.peekSignificant() == UInt8(ascii: "[") else {
                    throw FHIRProblem(path: "entry", problem: "expected an array")
                }
                try reader.readArray { index in
                    let entryValue = firstPass ? try Self.firstPassEntry(reader) : try reader.value()
                    let entry = JSONCursor(entryValue, path: "entry[\(index)]")
                    try body(
                        FHIRSourceEntry(
                            resource: try entry.require("resource"),
                            fullURL: try entry.string("fullUrl"),
                            fullURLPath: entry.path("fullUrl")
                        )
                    )
                }
            default:
                try reader.skipValue()
            }
        }
        try reader.finish()
        guard type != nil else { throw FHIRProblem(path: "resourceType", problem: "expected \"Bundle\"") }
    }

    /// An entry as the first pass needs it: its `fullUrl`, and its resource as far as
    /// `FHIRBundle.firstPassResource` builds it. The rest is checked as JSON and skipped.
    private static func firstPassEntry(_ reader: JSONStreamReader) throws -> JSONValue {
        guard try reader.peekSignificant() == UInt8(ascii: "{") else { return try reader.value() }
        var members: [String: JSONValue] = [:]
        try reader.readObject { key in
            guard key == "resource" || key == "fullUrl" else { return try reader.skipValue() }
            guard key == "resource" else {
                members[key] = try reader.value()
                return
            }
            members[key] = try FHIRBundle.firstPassResource(reader)
        }
        return .object(members)
    }
}

/// A FHIR bulk-data export (`$export`): NDJSON files, one resource per line, usually one file
/// per resource type (`Patient.ndjson`, `Observation.ndjson.gz`, …). Read as one input: its
/// patients in one file, their entries in others.
///
/// Each line is parsed on its own, so a line holding two values, or half of one, is refused
/// at its line; blank lines are allowed. A problem anywhere is thrown as `NDJSONProblem`, naming
/// the file and the line, whatever threw it (the reader, the converter or the writer).
struct NDJSONSource: FHIRSource {
    let files: [String]

    func forEachResource(firstPass: Bool, _ body: (FHIRSourceEntry) throws -> Void) throws {
        for file in files {
            try NDJSONLines.forEach(path: file) { number, line in
                do {
                    let reader = JSONStreamReader(data: line)
                    let value = firstPass ? try FHIRBundle.firstPassResource(reader) : try reader.value()
                    try reader.finish()
                    try body(FHIRSourceEntry(resource: JSONCursor(value), fullURL: nil, fullURLPath: "fullUrl"))
                } catch let problem as FHIRProblem {
                    throw NDJSONProblem(file: file, line: number, reason: .malformed(problem))
                } catch let clash as PatientClash {
                    throw NDJSONProblem(file: file, line: number, reason: .clash(clash))
                }
            }
        }
    }
}

/// What is wrong on one line of an NDJSON file. Becomes `StoreError.malformedLine` or
/// `.patientClashInExport` naming `FILE:LINE`.
struct NDJSONProblem: Error {
    enum Reason {
        case malformed(FHIRProblem)
        case clash(PatientClash)
    }

    let file: String
    let line: Int
    let reason: Reason
}

/// The lines of a regular file (`ImportFile`), read in 1 MiB chunks: each line's bytes (without
/// its `\n`) and its number from 1; a line longer than `maximumLineLength` is refused at its
/// number as soon as the reader passes the limit. Lines of nothing but JSON whitespace are passed over. Every byte is looked
/// at once by `memchr` and copied once into its line: linear in the file. A file whose name ends
/// in `.gz` is read through `GzipReader`; bytes that are not gzip are a problem at the line
/// being read.
enum NDJSONLines {
    static let chunkSize = 1 << 20
    /// The longest line: 16 MiB, far above any resource a FHIR server writes on one line (a
    /// Synthea resource is well under 1 MiB), and low enough that the line, its copy and the
    /// values parsed from it stay within a few hundred megabytes whatever it holds.
    static let maximumLineLength = 16 << 20

    static func forEach(path: String, _ body: (Int, Data) throws -> Void) throws {
        let descriptor = try ImportFile.open(path)
        defer { close(descriptor) }
        let gzip = path.lowercased().hasSuffix(".gz") ? try GzipReader(descriptor: descriptor) : nil
        var chunk = [UInt8](repeating: 0, count: chunkSize)
        var pending: [UInt8] = []
        var number = 0
        func emit() throws {
            number += 1
            defer { pending.removeAll(keepingCapacity: true) }
            let blank = pending.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }
            if !blank { try body(number, Data(pending)) }
        }
        // Refused as soon as the line being read passes the limit, not at its end: a line of
        // 10 GiB (a gzip bomb) is never held, and the rest of the file is never read.
        func checkLength() throws {
            guard pending.count > maximumLineLength else { return }
            let problem = FHIRProblem(
                path: "(line)",
                problem: "the line is longer than \(maximumLineLength / (1 << 20)) MiB (\(maximumLineLength) bytes)"
            )
            throw NDJSONProblem(file: path, line: number + 1, reason: .malformed(problem))
        }
        func fill(_ buffer: UnsafeMutableRawBufferPointer) throws -> Int {
            guard let gzip else {
                while true {
                    let count = read(descriptor, buffer.baseAddress, buffer.count)
                    if count >= 0 { return count }
                    if errno != EINTR { throw StoreError.unreadable(path: path) }
                }
            }
            do {
                return try gzip.read(into: buffer, path: path)
            } catch let failure as GzipReader.Failure {
                let problem = FHIRProblem(path: "(gzip)", problem: "not valid gzip data: \(failure.reason)")
                throw NDJSONProblem(file: path, line: number + 1, reason: .malformed(problem))
            }
        }
        while true {
            let count = try chunk.withUnsafeMutableBytes { try fill($0) }
            if count == 0 { break }
            try chunk.withUnsafeBytes { bytes in
                var start = 0
                while start < count,
                    let found = memchr(bytes.baseAddress! + start, 0x0A, count - start)
                {
                    let end = bytes.baseAddress!.distance(to: UnsafeRawPointer(found))
                    pending.append(contentsOf: bytes[start..<end])
                    try checkLength()
                    try emit()
                    start = end + 1
                }
                pending.append(contentsOf: bytes[start..<count])
                try checkLength()
            }
        }
        if !pending.isEmpty { try emit() }
    }
}
