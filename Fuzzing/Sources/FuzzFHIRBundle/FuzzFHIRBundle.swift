// The FHIR R4 bundle reader: any bytes as a bundle file.
// Entry point: `FHIRBundle(json: Data)` (internal to WardRecords, hence `@testable`; the fuzz
// package is built in debug, where testability is on). It must throw `FHIRProblem` or return,
// never trap, whatever the bytes.
import Foundation
@testable import WardRecords

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFHIRBundle(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = Data(UnsafeBufferPointer(start: start, count: count))
    do {
        let bundle = try FHIRBundle(json: data)
        _ = bundle.read.count + bundle.skipped.count
    } catch {
        _ = String(describing: error)
    }
    return 0
}
