import Foundation
import Testing
import WardCore

/// `PrintfNumber` replaced `String(format:)`; it must write what that wrote.
@Suite struct PrintfNumberTests {
    @Test(arguments: [5.4321987, 72.25, 0.000012345, 123_456.7, -3.14159, 1e300, .nan, .infinity, -0.0])
    func writesWhatStringFormatWrote(_ value: Double) {
        #expect(PrintfNumber.format("%.4g", value) == String(format: "%.4g", value))
        #expect(PrintfNumber.format("%.1f", value) == String(format: "%.1f", value))
    }

    @Test func aNumberLongerThanTheFirstBuffer_isWrittenWhole() {
        let written = PrintfNumber.format("%.1f", 1e300)
        #expect(written.count == 303 && written.hasPrefix("1000000000000000052504760255204420248704"))
    }

    @Test func examples() {
        #expect(PrintfNumber.format("%.4g", 5.4321) == "5.432")
        #expect(PrintfNumber.format("%.4g", 0.0000123) == "1.23e-05")
        #expect(PrintfNumber.format("%.1f", 2.25) == "2.2")
    }
}
