import Glibc

/// Standard error, the one way Ward writes there: every `ward: …` line, a batch's
/// `FILE:LINE: message`, `ward import`'s progress.
///
/// One writer so that text not written by Ward passes `Sanitizer` exactly once on its way out
/// (escaping twice doubles each backslash), and so that nothing on this path buffers: `write(2)`
/// on descriptor 2, whole, retried on `EINTR`. Not C's `stderr` (shared mutable state to strict
/// concurrency) nor `FileHandle` (Foundation, for one system call).
public enum StandardError {
    /// What every line of Ward's own messages begins with, as other Unix tools name themselves.
    public static let prefix = "ward: "

    /// `ward: message` and a newline; a message of several lines (every problem of a site file)
    /// gets the prefix on each. Its controls are shown (`Sanitizer`), never sent.
    public static func report(_ message: String) {
        let lines = message.split(separator: "\n", omittingEmptySubsequences: false)
        write(lines.map { prefix + $0 + "\n" }.joined())
    }

    /// `text` as it is laid out (a newline stays a line break), its controls shown.
    public static func write(_ text: String) {
        writeVerbatim(Sanitizer.text(text))
    }

    /// `text` byte for byte: a control sequence of Ward's own (a progress line's `\r\e[K`), or
    /// text the caller has passed through `Sanitizer` already (`BatchOutput` does, so that its
    /// tests see what the terminal would).
    public static func writeVerbatim(_ text: String) {
        var text = text
        text.withUTF8 { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(STDERR_FILENO, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { return }  // standard error is gone; nowhere left to say so
                offset += written
            }
        }
    }
}
