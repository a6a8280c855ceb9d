import Testing
import WardCore

/// `[display] color` and `bell`, `NO_COLOR` and a terminal: when Ward colours and rings.
@Suite struct TerminalStyleTests {
    private func display(_ color: UserPreferences.Display.Color, bell: Bool = false) -> UserPreferences.Display {
        var display = UserPreferences.Display()
        display.color = color
        display.bell = bell
        return display
    }

    @Test func auto_colours_onATerminal_withoutNO_COLOR() {
        #expect(TerminalStyle(nil, noColor: nil, outputIsTerminal: true).color)
        #expect(TerminalStyle(display(.auto), noColor: nil, outputIsTerminal: true).color)
        // An empty NO_COLOR is no request (no-color.org: "present and not an empty string").
        #expect(TerminalStyle(display(.auto), noColor: "", outputIsTerminal: true).color)
    }

    @Test func auto_isPlain_withNO_COLOR_ofAnyValue() {
        for value in ["1", "0", "false", "yes"] {
            #expect(!TerminalStyle(display(.auto), noColor: value, outputIsTerminal: true).color, "\(value)")
        }
    }

    @Test func never_isPlain_andAlways_overridesNO_COLOR() {
        #expect(!TerminalStyle(display(.never), noColor: nil, outputIsTerminal: true).color)
        #expect(TerminalStyle(display(.always), noColor: "1", outputIsTerminal: true).color)
    }

    @Test func notATerminal_isPlain_whateverTheFileSays() {
        #expect(TerminalStyle(display(.always, bell: true), noColor: nil, outputIsTerminal: false) == .plain)
    }

    @Test func theBell_isTheUsersChoice_andIndependentOfColour() {
        #expect(!TerminalStyle(nil, noColor: nil, outputIsTerminal: true).bell)
        let style = TerminalStyle(display(.never, bell: true), noColor: "1", outputIsTerminal: true)
        #expect(style.bell && !style.color)
        #expect(style.warning == ("\u{07}", ""))
    }

    @Test func theSequences_wrapTheText_andNothingWhenPlain() {
        let style = TerminalStyle(color: true, bell: true)
        #expect(style.header("TIME  VALUE") == "\u{1B}[1mTIME  VALUE\u{1B}[0m")
        #expect(style.warning == ("\u{07}\u{1B}[1;33m", "\u{1B}[0m"))
        #expect(TerminalStyle.plain.header("TIME") == "TIME")
        #expect(TerminalStyle.plain.warning == ("", ""))
    }
}
