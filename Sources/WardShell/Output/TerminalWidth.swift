import Glibc

/// The terminal's width in columns, read when a table is drawn (the window may have been resized).
public enum TerminalWidth {
    public static let fallback = 80

    /// The window size of standard output, else `COLUMNS`, else 80.
    public static func current() -> Int {
        var size = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 {
            return Int(size.ws_col)
        }
        if let text = getenv("COLUMNS"), let columns = Int(String(cString: text)), columns > 0 {
            return columns
        }
        return fallback
    }
}
