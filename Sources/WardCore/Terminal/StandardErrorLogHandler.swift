import Glibc
import Logging
import WardSupport

/// Where Ward's log lines go: standard error, one line each, in the layout of swift-log's
/// `StreamLogHandler` (`2026-11-29T05:14:09+0000 warning ward.chain: plugin.name=idle-timer
/// [WardCore] message`).
///
/// Ward's own, for two reasons. A log line carries text Ward did not write (a plugin's name and
/// message, a path, a server's error); here the whole line passes `Sanitizer` on its way out, so
/// no control sequence in it reaches the terminal and no newline in it can start a line that
/// passes for another. And `StreamLogHandler` formats a logger's metadata when it is set, through
/// generic code whose first run searches every protocol conformance in the binary: the chain sets
/// `plugin.name` on each plugin's logger before the first prompt. Here metadata is formatted only
/// for a line that is written, and Ward writes few (warnings and worse).
public struct StandardErrorLogHandler: LogHandler {
    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    private let label: String

    public init(label: String, logLevel: Logger.Level = .warning) {
        self.label = label
        self.logLevel = logLevel
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var all = metadata
        if let provided = metadataProvider?.get() { all.merge(provided) { $1 } }
        if let explicit = event.metadata { all.merge(explicit) { $1 } }
        if let error = event.error { all["error.message"] = .string(String(describing: error)) }
        StandardError.writeVerbatim(
            Self.line(
                time: Self.timestamp(time(nil)),
                level: event.level,
                label: label,
                metadata: all,
                source: event.source,
                message: event.message.description
            )
        )
    }

    /// One line and its newline: the metadata sorted by key, every control shown (`Sanitizer`).
    static func line(
        time: String,
        level: Logger.Level,
        label: String,
        metadata: Logger.Metadata,
        source: String,
        message: String
    ) -> String {
        var text = time + " " + level.rawValue + " " + label + ":"
        for key in metadata.keys.sorted() {
            text += " " + key + "=" + metadata[key]!.description
        }
        text += " [" + source + "] " + message
        return Sanitizer.line(text) + "\n"
    }

    /// The local time as `2026-11-29T05:14:09+0000`.
    static func timestamp(_ seconds: time_t) -> String {
        var seconds = seconds
        var parts = tm()
        guard localtime_r(&seconds, &parts) != nil else { return "<unknown>" }
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = buffer.withUnsafeMutableBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) {
                strftime($0.baseAddress, $0.count, "%Y-%m-%dT%H:%M:%S%z", &parts)
            }
        }
        return String(decoding: buffer[..<count], as: UTF8.self)
    }
}
