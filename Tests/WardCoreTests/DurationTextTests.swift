import Testing
import WardCore

@Suite struct DurationTextTests {
    @Test(arguments: [
        ("500ms", Duration.milliseconds(500)), ("30s", .seconds(30)), ("5m", .seconds(300)),
        ("1h30m", .seconds(5400)), ("0s", .zero),
    ])
    func parses(_ text: String, _ expected: Duration) {
        #expect(DurationText.parse(text) == expected)
        #expect(DurationText.parse(DurationText.format(expected)) == expected)
    }

    @Test(arguments: ["300", "5 minutes", "", "m", "5x", "-5s", "1.5s"])
    func refuses(_ text: String) {
        #expect(DurationText.parse(text) == nil)
    }
}
