import Logging
import Testing

@testable import WardCore

/// Ward's log lines: swift-log's layout, and nothing from outside Ward reaching the terminal as
/// a control sequence or a line of its own.
@Suite struct StandardErrorLogHandlerTests {
    @Test func aLine_hasStreamLogHandlersLayout_withTheMetadataSortedByKey() {
        let line = StandardErrorLogHandler.line(
            time: "2026-11-29T05:14:09+0000",
            level: .warning,
            label: "ward.chain",
            metadata: ["z": "2", "plugin.name": "idle-timer"],
            source: "WardCore",
            message: "timer not armed"
        )
        #expect(
            line
                == "2026-11-29T05:14:09+0000 warning ward.chain: plugin.name=idle-timer z=2 [WardCore] timer not armed\n"
        )
    }

    @Test func textFromOutside_isWrittenWithItsControlsShown_onOneLine() {
        let line = StandardErrorLogHandler.line(
            time: "T",
            level: .error,
            label: "ward.plugin",
            metadata: ["plugin.name": "\u{1B}]52;c;aGk=\u{07}"],
            source: "X",
            message: "refused\nward: signed on \u{1B}[2J\u{9B}"
        )
        #expect(
            line == "T error ward.plugin: plugin.name=\\e]52;c;aGk=\\a [X] refused\\nward: signed on \\e[2J\\u009B\n"
        )
    }

    @Test func theTimestamp_isTheLocalTime_withItsOffset() {
        let stamp = Array(StandardErrorLogHandler.timestamp(86_400 * 365).utf8)
        #expect(stamp.count == 24, "\(String(decoding: stamp, as: UTF8.self))")
        #expect(stamp.count == 24 && stamp[4] == UInt8(ascii: "-") && stamp[10] == UInt8(ascii: "T"))
        #expect(stamp.count == 24 && (stamp[19] == UInt8(ascii: "+") || stamp[19] == UInt8(ascii: "-")))
    }

    @Test func settingMetadata_keepsIt_perLogger() {
        var a = Logger(label: "a") { StandardErrorLogHandler(label: $0) }
        let b = a
        a[metadataKey: "plugin.name"] = "audit-log"
        #expect(a[metadataKey: "plugin.name"] == "audit-log" && b[metadataKey: "plugin.name"] == nil)
        #expect(a.logLevel == .warning)
    }
}
