import FoundationEssentials

/// A cell as JSON writes it (`ward --batch --format json`, the shell's `format json`): typed, so
/// a script reads a number as a number and a time as a time, not text to parse again.
///
/// Text shows a row for reading (`72`, `2020-05-06T05:08-07:00`, the code's display); JSON keeps
/// what the record holds: the number, the instant to the second with its offset, the code with
/// its system. `TextTable.values` holds a row's cells so, by key.
public enum TableValue: Sendable, Equatable {
    case text(String)
    case number(Double)
    case bool(Bool)
    /// An instant, written `2020-01-02T03:04:05-08:00` (RFC 3339, in the site's zone with its
    /// offset); a FHIR date without a time as that day (`2020-01-02`, `ChartFormat.instant`).
    case time(Date)
    /// A code with its system, as the record holds them: `{"system": …, "code": …, "display": …}`,
    /// each key only when not empty (rows imported before migration 4 have no system).
    case code(system: String, code: String, display: String)
    case list([String])
    case null

    /// An instant, or `null` when the record has none.
    static func time(_ date: Date?) -> TableValue { date.map(TableValue.time) ?? .null }

    /// A code, or `null` when the record has no code (only a name).
    static func code(_ system: String, _ code: String, _ display: String) -> TableValue {
        code.isEmpty ? .null : .code(system: system, code: code, display: display)
    }

    /// `2020-01-02T03:04:05-08:00`.
    static func iso8601(_ date: Date) -> String {
        // Not `Date.ISO8601FormatStyle`: it builds a calendar in the process's time zone, which
        // reads ICU's zone data (resident memory); the C library's zone functions do it.
        ChartFormat.instant(date)
    }
}

extension TableValue: Encodable {
    private enum CodeKeys: String, CodingKey { case system, code, display }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .code(let system, let code, let display):
            var container = encoder.container(keyedBy: CodeKeys.self)
            if !system.isEmpty { try container.encode(system, forKey: .system) }
            try container.encode(code, forKey: .code)
            if !display.isEmpty { try container.encode(display, forKey: .display) }
        case .text(let text):
            var container = encoder.singleValueContainer()
            try container.encode(text)
        case .number(let number):
            var container = encoder.singleValueContainer()
            // JSON has no NaN nor infinity: a value Ward cannot write as a number is null.
            if number.isFinite {
                // A whole number is written without `.0` (`72`, not `72.0`): JSONEncoder writes
                // a Double's shortest round-trip form, so integers go as Int64.
                if number.rounded() == number && abs(number) < 1e15 {
                    try container.encode(Int64(number))
                } else {
                    try container.encode(number)
                }
            } else {
                try container.encodeNil()
            }
        case .bool(let flag):
            var container = encoder.singleValueContainer()
            try container.encode(flag)
        case .time(let date):
            var container = encoder.singleValueContainer()
            try container.encode(Self.iso8601(date))
        case .list(let items):
            var container = encoder.singleValueContainer()
            try container.encode(items)
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        }
    }
}
