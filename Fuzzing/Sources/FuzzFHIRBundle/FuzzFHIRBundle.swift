// The FHIR R4 bundle reader: any bytes as a bundle file.
// Entry point: `FHIRImporter.check(_:file:)`, which streams the bytes through `JSONStreamReader`
// and `FHIRBundle` in both of the import's passes without a store. It must throw or return,
// never trap, whatever the bytes.
import Foundation
import WardRecords

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFHIRBundle(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = Data(UnsafeBufferPointer(start: start, count: count))
    do {
        let report = try FHIRImporter.check(data, file: "fuzz.json")
        _ = report.patients + report.imported.count + report.skipped.count
    } catch {
        _ = String(describing: error)
    }
    return 0
}
