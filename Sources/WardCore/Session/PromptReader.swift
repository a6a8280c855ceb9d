import Glibc

/// A user name or password prompt in the terminal's own canonical mode, not readline.
///
/// Readline would keep the password in its line buffer, undo list and history; in canonical mode
/// the kernel holds the partial line and Ward sees it only when Enter is pressed
/// (docs/readline.md §7). `TCSAFLUSH` throws away whatever was typed ahead of the prompt, so a
/// line typed at a locked screen is never taken for a password, nor run.
///
/// - Important: The password bytes are zeroed as soon as they have been checked.
struct PromptReader {
    enum Kind {
        /// Echo on: a user name.
        case visible
        /// Echo off: a password.
        case secret
    }

    let terminal: Terminal

    /// Shows `prompt` in canonical mode; the loop reads the answer when the terminal is readable.
    ///
    /// `flush` discards what was typed before the prompt (a new prompt); after `fg` the mode is
    /// only re-applied, so keys typed since are kept.
    func show(_ prompt: String, kind: Kind, flush: Bool = true) {
        var t = terminal.original
        t.c_lflag |= tcflag_t(ICANON | ISIG)
        if kind == .secret {
            t.c_lflag &= ~tcflag_t(ECHO | ECHOE | ECHOK | ECHONL)
        } else {
            t.c_lflag |= tcflag_t(ECHO)
        }
        tcsetattr(terminal.fd, flush ? TCSAFLUSH : TCSANOW, &t)
        // The prompt names the user as typed: shown, never sent.
        Terminal.write(Terminal.focusReportingOff + Sanitizer.text(prompt))
    }

    /// Reads one answered line; nil at Ctrl-D on an empty line (or a closed terminal).
    /// The trailing newline is dropped; the caller zeroes the bytes when done.
    func readAnswer() -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = read(terminal.fd, &buffer, buffer.count)
        guard n > 0 else { return nil }
        var answer = Array(buffer[0..<n])
        explicit_bzero(&buffer, buffer.count)
        while let last = answer.last, last == 0x0A || last == 0x0D { answer.removeLast() }
        return answer
    }

    /// Throws away anything typed so far; returns how many lines it held.
    func discardTypeahead() -> Int {
        var lines = 0
        var buffer = [UInt8](repeating: 0, count: 4096)
        let flags = fcntl(terminal.fd, F_GETFL)
        _ = fcntl(terminal.fd, F_SETFL, flags | O_NONBLOCK)
        while true {
            let n = read(terminal.fd, &buffer, buffer.count)
            if n <= 0 { break }
            lines += buffer[0..<n].filter { $0 == 0x0A || $0 == 0x0D }.count
            explicit_bzero(&buffer, buffer.count)
        }
        _ = fcntl(terminal.fd, F_SETFL, flags)
        return lines
    }
}
