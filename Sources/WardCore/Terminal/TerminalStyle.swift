/// Ward's own colour and bell at a terminal: bold table headers, the idle warning in yellow, and
/// the bell with that warning, as the user's file asks (`[display] color`, `bell`).
///
/// Colour follows no-color.org: `auto` (the default) colours only when standard output is a
/// terminal and `NO_COLOR` is unset or empty; `never` never does; `always` does even with
/// `NO_COLOR` set (a user's own configuration overrides the variable, as no-color.org asks), but
/// only in the interactive shell: a batch and `ward -c` write plain text whatever the file says.
/// The bell rings only with the idle warning, only when asked, and only at a terminal.
///
/// - Important: these sequences are Ward's own, written around text already sanitized, never
///   taken from data; the hostile-text tests allow exactly `headerOn`, `warningOn` and `reset`.
public struct TerminalStyle: Sendable, Equatable {
    public var color: Bool
    public var bell: Bool

    /// Bold (SGR 1): a table's header line.
    public static let headerOn = "\u{1B}[1m"
    /// Bold yellow (SGR 1;33): the idle warning.
    public static let warningOn = "\u{1B}[1;33m"
    /// Every attribute off (SGR 0).
    public static let reset = "\u{1B}[0m"
    public static let bellCharacter = "\u{07}"

    /// No colour, no bell: batches, `ward -c`, and a terminal whose user chose neither.
    public static let plain = TerminalStyle(color: false, bell: false)

    public init(color: Bool, bell: Bool) {
        self.color = color
        self.bell = bell
    }

    /// The style for the interactive shell, from the user's `[display]` table (defaults when the
    /// user has no file), `NO_COLOR`'s value (nil when unset) and whether standard output is a
    /// terminal.
    public init(_ display: UserPreferences.Display?, noColor: String?, outputIsTerminal: Bool) {
        let display = display ?? UserPreferences.Display()
        guard outputIsTerminal else {
            self = .plain
            return
        }
        switch display.color {
        case .never: color = false
        case .always: color = true
        case .auto: color = noColor?.isEmpty ?? true
        }
        bell = display.bell
    }

    /// A table's header line, bold when colour is on.
    public func header(_ line: String) -> String {
        color ? Self.headerOn + line + Self.reset : line
    }

    /// What goes before and after the idle warning's sanitized text: the colour, and the bell
    /// first so it rings as the line appears.
    public var warning: (prefix: String, suffix: String) {
        (
            (bell ? Self.bellCharacter : "") + (color ? Self.warningOn : ""),
            color ? Self.reset : ""
        )
    }
}
