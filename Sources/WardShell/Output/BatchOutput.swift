import CWardSystem
import FoundationEssentials
import Glibc
import WardCore

/// What a batch writes: each command's results on standard output, as text, as one JSON object
/// per command or as CSV tables, and each failure on standard error as `FILE:LINE: message`.
///
/// Standard output carries only results, so `ward --batch x --format json | jq` parses every
/// line; everything about the session (a demo banner, a lock, why the batch stopped) goes to
/// standard error. Text is the terminal's text without decoration: tables are cut to the width
/// only when standard output is a terminal.
///
/// Nothing hostile leaves here raw: text lines (standard output and standard error) go through
/// `Sanitizer`, and JSON through `Sanitizer.json`, which writes DEL, C1 and bidi controls as
/// `\uXXXX` where `JSONEncoder` would leave them raw.
public final class BatchOutput: ShellOutput, BatchReporter {
    public enum Format: String, CaseIterable, Sendable {
        case text
        case json
        /// RFC 4180, one header row per table (`CSV`); messages go to standard error, so
        /// standard output is only the tables.
        case csv
    }

    /// One command, as `--format json` writes it on one line.
    struct CommandRecord: Encodable {
        var line: Int
        var source: String
        var command: String
        var status: String
        var rows: [[String: TableValue]]
        var messages: [String]
        var error: String?
    }

    private let format: Format
    private let width: () -> Int
    private let standardOutput: (String) -> Void
    private let standardError: (String) -> Void
    private let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// The command running now, and what it has said so far.
    private var current: Line?
    private var rows: [[String: TableValue]] = []
    private var messages: [String] = []
    private var failureMessage: String?

    /// - Parameters:
    ///   - standardOutput: Takes each line, sanitized; `BatchOutput.printLine` by default.
    ///   - standardError: Takes each line, sanitized here (once), so the default writes it with
    ///     `StandardError.writeVerbatim`; tests pass a closure to see what a terminal would.
    public init(
        format: Format,
        width: @escaping () -> Int = BatchOutput.width,
        standardOutput: @escaping (String) -> Void = BatchOutput.printLine,
        standardError: @escaping (String) -> Void = { StandardError.writeVerbatim($0 + "\n") }
    ) {
        self.format = format
        self.width = width
        self.standardOutput = standardOutput
        self.standardError = { standardError(Sanitizer.text($0)) }
    }

    /// Writes `line` and a newline into stdio's standard output buffer, as `print` does (the
    /// batch flushes it after each command). Not `print`: its generic text stream costs more
    /// than the rest of a line's output (Benchmarks/README.md).
    public static func printLine(_ line: String) {
        var line = line
        line.withUTF8 { bytes in _ = fwrite(bytes.baseAddress, 1, bytes.count, ward_stdout()) }
        fputc(0x0A, ward_stdout())
    }

    /// The terminal's width when standard output is one; otherwise no limit, so a script sees
    /// every character of every cell.
    public static func width() -> Int {
        isatty(STDOUT_FILENO) == 1 ? TerminalWidth.current() : Int.max
    }

    // MARK: ShellOutput

    public func message(_ text: String, _ mode: Sanitizer.Mode) {
        guard current != nil else { return standardError(text) }
        switch format {
        case .text:
            // Broken between words only at a terminal: a script reads each message whole.
            let text = Sanitizer.sanitize(text, mode)
            standardOutput(mode == .text ? WordWrap.text(text, width: width()) : text)
        case .json: messages.append(text)
        case .csv: standardError(text)
        }
    }

    public func table(_ table: TextTable) {
        switch format {
        case .text:
            for line in table.render(width: width()) { standardOutput(line) }
        case .json:
            rows += table.objects
        case .csv:
            // `standardOutput` ends each line with LF: with the CR, each record ends in CRLF.
            for record in table.csvRecords { standardOutput(CSV.record(record) + "\r") }
        }
    }

    public func failure(_ message: String) {
        guard current != nil else { return standardError(StandardError.prefix + message) }
        failureMessage = message
    }

    // MARK: BatchReporter

    public func commandStarted(_ line: Line) {
        current = line
        rows = []
        messages = []
        failureMessage = nil
    }

    public func commandFinished(_ line: Line, status: BatchStatus) {
        defer {
            current = nil
            rows = []
            messages = []
            failureMessage = nil
        }
        let error: String? =
            switch status {
            case .succeeded: nil
            case .failed: failureMessage ?? "the command failed."
            case .denied(let message): message
            }
        if let error { standardError("\(line.source.place): \(error)") }
        guard format == .json else { return }
        let record = CommandRecord(
            line: Self.number(line),
            source: line.source.description,
            command: line.text,
            status: status.name,
            rows: rows,
            messages: messages,
            error: error
        )
        // Strings, numbers, booleans and null only: encoding cannot fail.
        guard let data = try? encoder.encode(record) else { return }
        standardOutput(Sanitizer.json(String(decoding: data, as: UTF8.self)))
    }

    public func notice(_ text: String) {
        standardError(StandardError.prefix + text)
    }

    private static func number(_ line: Line) -> Int {
        if case .batch(_, let number) = line.source { return number }
        return 0
    }
}

@available(*, unavailable)
extension BatchOutput: Sendable {}
