import CWardSystem
import Glibc

/// The terminal's settings as Ward found them, for `atexit` and fatal paths.
nonisolated(unsafe) private var originalSettings: termios?
nonisolated(unsafe) private var originalFD: Int32 = -1

/// The controlling terminal: its settings as Ward found them, and the escape sequences Ward sends.
///
/// Ward keeps its own copy of the settings taken at start, because readline's prep re-saves the
/// *current* settings as its "original" (docs/readline.md §2): after an odd stop it
/// would restore a raw terminal. Every exit path restores this copy: a normal exit, Ctrl-D,
/// SIGHUP, SIGTERM, a thrown error (through `defer`), and `exit()` from anywhere (`atexit`).
public final class Terminal {
    /// The terminal's descriptor (standard input).
    public let fd: Int32
    private let saved: termios

    /// The terminal on `fd`, or nil when `fd` is not a terminal (a pipe, a file: batch mode).
    public init?(fd: Int32 = STDIN_FILENO) {
        guard isatty(fd) == 1 else { return nil }
        Self.waitForForeground(fd)
        var t = termios()
        guard tcgetattr(fd, &t) == 0 else { return nil }
        self.fd = fd
        self.saved = t
        if originalSettings == nil {
            originalSettings = t
            originalFD = fd
            atexit { Terminal.restoreAtExit() }
        }
    }

    /// Started in the background (`ward &`), stops until `fg`, as job-control shells do.
    ///
    /// Settings read in the background are the foreground job's: bash's readline has the terminal
    /// raw, with CR not turned into NL, so a password prompt would never see Enter, and exit
    /// would "restore" a raw terminal. SIGTTIN stops the process (no busy loop); an inherited
    /// "ignore" is undone first, or the loop would spin.
    private static func waitForForeground(_ fd: Int32) {
        signal(SIGTTIN, SIG_DFL)
        signal(SIGTTOU, SIG_DFL)
        while true {
            let foreground = tcgetpgrp(fd)
            guard foreground >= 0, foreground != getpgrp() else { return }
            kill(-getpgrp(), SIGTTIN)
        }
    }

    /// Puts the settings back as Ward found them: cooked, echo on.
    public func restore() {
        var t = saved
        tcsetattr(fd, TCSANOW, &t)
    }

    /// The settings Ward found, for a prompt that needs its own mode (no echo for a password).
    public var original: termios { saved }

    /// The pager's mode, from the settings Ward found: keys one at a time, no echo, and Ctrl-C
    /// and Ctrl-Z still signal.
    public func readKeysOneAtATime() {
        var t = saved
        t.c_lflag &= ~tcflag_t(ICANON | ECHO | ECHONL)
        t.c_lflag |= tcflag_t(ISIG)
        withUnsafeMutableBytes(of: &t.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        tcsetattr(fd, TCSANOW, &t)
    }

    /// The watchdog's way out (`TerminationWatchdog`), from its own thread while the loop's
    /// thread is stuck: the screen and scrollback cleared (a chart may be on it), focus reports
    /// and bracketed paste off (readline turned it on), and the settings Ward found. Raw
    /// `write(2)` and `tcsetattr`, both safe from any thread: stdio's lock may be held by the
    /// stuck thread. Does nothing when Ward never had a terminal (batch mode).
    static func restoreFromAnyThread() {
        guard var t = originalSettings, originalFD >= 0 else { return }
        let bytes = Array((clearScreenAndScrollback + focusReportingOff + "\u{1B}[?2004l" + "Signed off.\r\n").utf8)
        _ = bytes.withUnsafeBytes { Glibc.write(STDOUT_FILENO, $0.baseAddress, $0.count) }
        tcsetattr(originalFD, TCSANOW, &t)
    }

    private static func restoreAtExit() {
        guard var t = originalSettings, originalFD >= 0 else { return }
        tcsetattr(originalFD, TCSANOW, &t)
    }

    /// Rows and columns; 24×80 when the terminal does not say.
    public var size: (rows: Int, columns: Int) { Self.size(of: fd) }

    /// The rows and columns of the terminal on `fd`; 24×80 when it does not say (or `fd` is no
    /// terminal).
    public static func size(of fd: Int32) -> (rows: Int, columns: Int) {
        var rows: UInt16 = 0
        var columns: UInt16 = 0
        guard ward_window_size(fd, &rows, &columns) == 0, rows > 0, columns > 0 else { return (24, 80) }
        return (Int(rows), Int(columns))
    }

    /// Writes `text` to standard output now, through stdio so that readline's output and
    /// Ward's stay in order.
    public static func write(_ text: String) {
        fputs(text, ward_stdout())
        fflush(ward_stdout())
    }

    /// Writes `text` as `write` does, and says whether all of it went out: for what must be seen
    /// before Ward goes on (the site's use notice).
    public static func writeChecked(_ text: String) -> Bool {
        clearerr(ward_stdout())
        return fputs(text, ward_stdout()) >= 0 && fflush(ward_stdout()) == 0 && ferror(ward_stdout()) == 0
    }

    /// Clears the screen and then the scrollback: `ESC[H ESC[2J ESC[3J`.
    ///
    /// The order matters: tmux moves a screen cleared with `2J` into its history, so `3J` has to
    /// come after it (docs/readline.md §5).
    public static let clearScreenAndScrollback = "\u{1B}[H\u{1B}[2J\u{1B}[3J"

    /// Turns the terminal's focus reports (`ESC[I`, `ESC[O`) on.
    public static let focusReportingOn = "\u{1B}[?1004h"
    /// And off again; sent on every exit and before a password prompt.
    public static let focusReportingOff = "\u{1B}[?1004l"

    /// The alternate screen, where the pager draws: what is drawn there never enters the
    /// scrollback, and leaving it brings the normal screen back as it was.
    public static let alternateScreenOn = "\u{1B}[?1049h"
    /// Back to the normal screen; sent before a lock clears the screen and scrollback.
    public static let alternateScreenOff = "\u{1B}[?1049l"
}

@available(*, unavailable)
extension Terminal: Sendable {}
