import ArgumentParser
import BuiltInPlugins
import Glibc
import WardCore

/// Where `ward audit show` and `ward audit report` write text: straight to standard output, or,
/// when standard input and output are both the terminal, kept and then shown a page at a time
/// when it is taller than the window (`CommandLinePager`), as the shell pages its tables.
///
/// The user file is read as the shell reads it: `[display] pager = false` prints tall text
/// whole, and its colour (with `NO_COLOR`) decides whether a table's header is bold. Off a
/// terminal (a pipe, a file, a script) the text is the same bytes as ever, never styled.
struct PagedText {
    /// Write the text here, a line at a time; a table's header with `writeHeader`.
    let pages: PageBuffer
    /// The terminal to page on; nil prints as it is written.
    private let terminal: Terminal?

    /// Reads the user file with the site file; when they cannot be read, the defaults (paged,
    /// colour as the terminal allows): how the answer looks is no reason to withhold it.
    init(global: GlobalOptions) {
        let policy = try? SitePolicy.load(siteOption: global.site, plugins: pluginRegistry)
        let display = policy?.preferences?.display
        let outputIsTerminal = isatty(STDOUT_FILENO) == 1
        let style = TerminalStyle(
            display,
            noColor: getenv("NO_COLOR").map { String(cString: $0) },
            outputIsTerminal: outputIsTerminal
        )
        pages = PageBuffer(style: style)
        terminal = outputIsTerminal && display?.pager != false ? Terminal(fd: STDIN_FILENO) : nil
        if terminal != nil { pages.startCapturing() }
    }

    /// Shows what was kept, paged when it must be; returns once the reader is done.
    ///
    /// - Throws: `ExitCode(128 + n)` when signal n (SIGTERM, SIGHUP) ended the paging.
    func finish() throws {
        guard let terminal else { return }
        if let signal = CommandLinePager.show(pages, on: terminal) { throw ExitCode(128 + signal.rawValue) }
    }
}
