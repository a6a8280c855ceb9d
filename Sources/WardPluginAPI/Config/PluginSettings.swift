/// One `[[plugin]]` table of the site file: the plugin's own keys, each with the line it was on.
///
/// A plugin's initializer reads what it needs through the typed accessors, which throw a
/// `ConfigError` naming `FILE:LINE` and the key on a value of the wrong type or out of range.
/// Keys no accessor asked for are reported as unknown by the registry (`unreadKeys`): a typo in a
/// security setting must not be silently ignored.
public final class PluginSettings {
    /// A value as the site file wrote it.
    public enum Value: Equatable, Sendable, CustomStringConvertible {
        case string(String)
        case integer(Int)
        case bool(Bool)
        case array([Value])
        /// A TOML float. No key of Ward's takes one; an external plugin's `settings` may.
        case float(Double)
        /// An inline or sub-table (`settings = { from = "08:00" }`); for an external plugin's `settings`.
        case table([String: Value])

        /// The value as TOML writes it, for messages: `"5 minutes"`, `300`, `["line"]`.
        public var description: String {
            switch self {
            case .string(let s): "\"" + s.replacingQuotes() + "\""
            case .integer(let n): "\(n)"
            case .bool(let b): "\(b)"
            case .float(let d): "\(d)"
            case .array(let items): "[" + items.map(\.description).joined(separator: ", ") + "]"
            case .table(let fields):
                "{ " + fields.sorted { $0.key < $1.key }.map { "\($0.key) = \($0.value)" }.joined(separator: ", ")
                    + " }"
            }
        }
    }

    /// The plugin's name (`name = "audit-log"`).
    public let name: String
    /// The site file, for messages.
    public let file: String
    /// The line of the `[[plugin]]` header.
    public let line: Int
    private let values: [String: (value: Value, line: Int)]
    private var read: Set<String> = []
    /// Keys that are never unread: `name` for a plugin, nothing for `[session]`.
    private let reserved: Set<String>
    /// What messages call this table: `plugin 'audit-log'`, `[session]`.
    let tableDescription: String

    public init(name: String, file: String, line: Int, values: [String: (value: Value, line: Int)]) {
        self.name = name
        self.file = file
        self.line = line
        self.values = values
        self.reserved = ["name"]
        self.tableDescription = "plugin '\(name)'"
    }

    /// A table that is not a plugin's (`[session]`, `[user.alice]`), read with the same accessors.
    package init(table: String, file: String, line: Int, values: [String: (value: Value, line: Int)]) {
        self.name = table
        self.file = file
        self.line = line
        self.values = values
        self.reserved = []
        self.tableDescription = table
    }

    /// Settings with nothing set: what a plugin gets when the site file does not exist.
    public static func defaults(for name: String) -> PluginSettings {
        PluginSettings(name: name, file: "(built-in defaults)", line: 0, values: [:])
    }

    /// The keys present that no accessor has read, sorted, each with its line.
    public var unreadKeys: [(key: String, line: Int)] {
        values.filter { !read.contains($0.key) && !reserved.contains($0.key) }
            .map { ($0.key, $0.value.line) }
            .sorted { ($0.line, $0.key) < ($1.line, $1.key) }
    }

    /// One "unknown key" error for each key present that no accessor read, each suggesting the
    /// closest key an accessor asked for (a typo such as `fsnyc` for `fsync`).
    public var unknownKeyErrors: [ConfigError] {
        unreadKeys.map { key, line in
            let asked = read.subtracting(values.keys).sorted()
            let suggestion = asked.map { ($0, editDistance($0, key)) }.filter { $0.1 <= 2 }.min { $0.1 < $1.1 }?.0
            return .unknownKey(file: file, line: line, key: key, table: tableDescription, suggestion: suggestion)
        }
    }

    /// Every key present, with its value; for an external plugin's handshake and `ward config check`.
    public var allValues: [(key: String, value: Value, line: Int)] {
        values.map { ($0.key, $0.value.value, $0.value.line) }.sorted { ($0.line, $0.key) < ($1.line, $1.key) }
    }

    /// Whether the key is present at all.
    public func has(_ key: String) -> Bool { values[key] != nil }

    /// The line `key` was written on, or the table's line when absent.
    public func line(of key: String) -> Int { values[key]?.line ?? line }

    public func string(_ key: String) throws -> String? {
        guard let (value, line) = take(key) else { return nil }
        guard case .string(let s) = value else { throw wrongType(key, line, "a string") }
        return s
    }

    public func integer(_ key: String, in range: ClosedRange<Int>? = nil) throws -> Int? {
        guard let (value, line) = take(key) else { return nil }
        guard case .integer(let n) = value else { throw wrongType(key, line, "a whole number") }
        if let range, !range.contains(n) {
            throw ConfigError.outOfRange(
                file: file,
                line: line,
                key: key,
                value: "\(n)",
                allowed: "\(range.lowerBound) to \(range.upperBound)"
            )
        }
        return n
    }

    public func bool(_ key: String) throws -> Bool? {
        guard let (value, line) = take(key) else { return nil }
        guard case .bool(let b) = value else { throw wrongType(key, line, "true or false") }
        return b
    }

    public func strings(_ key: String) throws -> [String]? {
        guard let (value, line) = take(key) else { return nil }
        guard case .array(let items) = value else { throw wrongType(key, line, "an array of strings") }
        return try items.map {
            guard case .string(let s) = $0 else { throw wrongType(key, line, "an array of strings") }
            return s
        }
    }

    /// A duration such as `"30s"`, `"5m"`, `"1h30m"`, `"500ms"`, within `range` when given.
    public func duration(_ key: String, in range: ClosedRange<Duration>? = nil) throws -> Duration? {
        guard let (value, line) = take(key) else { return nil }
        guard case .string(let text) = value, let d = DurationText.parse(text) else {
            throw ConfigError.badDuration(file: file, line: line, key: key, value: "\(value)")
        }
        if let range, !range.contains(d) {
            throw ConfigError.outOfRange(
                file: file,
                line: line,
                key: key,
                value: DurationText.format(d),
                allowed: "\(DurationText.format(range.lowerBound)) to \(DurationText.format(range.upperBound))"
            )
        }
        return d
    }

    /// A table (`settings = { from = "08:00" }`, or a `[plugin.settings]` table after the `[[plugin]]`).
    public func table(_ key: String) throws -> [String: Value]? {
        guard let (value, line) = take(key) else { return nil }
        guard case .table(let fields) = value else { throw wrongType(key, line, "a table") }
        return fields
    }

    /// The value as written, of whatever type, for a key that takes several (`[exec] allow`
    /// holds names and inline tables).
    package func value(_ key: String) -> (value: Value, line: Int)? {
        take(key).map { (value: $0.0, line: $0.1) }
    }

    /// One of a fixed set of words (`fsync = "always"`).
    public func choice(_ key: String, from allowed: [String]) throws -> String? {
        guard let s = try string(key) else { return nil }
        guard allowed.contains(s) else {
            throw ConfigError.outOfRange(
                file: file,
                line: line(of: key),
                key: key,
                value: "\"\(s)\"",
                allowed: allowed.map { "\"\($0)\"" }.joined(separator: ", ")
            )
        }
        return s
    }

    private func take(_ key: String) -> (Value, Int)? {
        read.insert(key)
        return values[key]
    }

    private func wrongType(_ key: String, _ line: Int, _ expected: String) -> ConfigError {
        .wrongType(file: file, line: line, key: key, expected: expected)
    }
}

@available(*, unavailable)
extension PluginSettings: Sendable {}

extension String {
    fileprivate func replacingQuotes() -> String {
        var out = ""
        for ch in self {
            switch ch {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            default: out.append(ch)
            }
        }
        return out
    }
}

/// Levenshtein distance, for "did you mean" on short keys.
package func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a)
    let b = Array(b)
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var previous = Array(0...b.count)
    var current = [Int](repeating: 0, count: b.count + 1)
    for i in 1...a.count {
        current[0] = i
        for j in 1...b.count {
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
        }
        swap(&previous, &current)
    }
    return previous[b.count]
}
