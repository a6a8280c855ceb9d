/// A site or user file that Ward refuses. Each names the file and line, and what to do.
///
/// Exit code 78 (EX_CONFIG): Ward stops before sign-on and changes nothing. A line of 0 means
/// the problem is the file as a whole (it cannot be read), and the message says `FILE: …`.
public enum ConfigError: WardError, Equatable, Sendable {
    /// A key holds a value of another type than the key takes.
    case wrongType(file: String, line: Int, key: String, expected: String)
    /// A number, duration or word outside what the key allows.
    case outOfRange(file: String, line: Int, key: String, value: String, allowed: String)
    /// A duration that does not parse (`"5 minutes"` instead of `"5m"`).
    case badDuration(file: String, line: Int, key: String, value: String)
    /// The file is not valid TOML; `message` is the parser's.
    case syntax(file: String, line: Int, message: String)
    /// The file cannot be read: named but missing, unreadable, or not UTF-8.
    case unreadable(file: String, reason: String)
    /// Anyone may write the file, so anyone could have weakened the policy in it.
    case insecure(file: String, reason: String)
    /// A key or table Ward does not know; `suggestion` is a known key a typo may have meant.
    case unknownKey(file: String, line: Int, key: String, table: String, suggestion: String?)
    /// A `[[plugin]]` names a plugin that this Ward does not have.
    case unknownPlugin(file: String, line: Int, name: String, known: [String])
    /// A key that must be there is not (`name` in a `[[plugin]]`).
    case missingKey(file: String, line: Int, key: String, table: String)
    /// Two settings that contradict each other (`warn-before` not shorter than `idle-timeout`).
    case conflict(file: String, line: Int, message: String)
    /// The user file would lengthen a timeout the site file sets (or the built-in default).
    case lengthens(
        file: String,
        line: Int,
        key: String,
        value: String,
        siteFile: String,
        siteLine: Int,
        siteValue: String
    )
    /// The user file would remove a plugin the site file enables.
    case dropsPlugin(file: String, line: Int, name: String, siteFile: String, siteLine: Int)
    /// A plugin refused to be built with its settings (its initializer threw something else).
    case pluginFailed(file: String, line: Int, name: String, reason: String)
    /// Every problem found, in file and line order; what `ward config check` reports.
    case several([ConfigError])

    public var description: String {
        switch self {
        case .wrongType(let file, let line, let key, let expected):
            "\(at(file, line))'\(key)' must be \(expected)."
        case .outOfRange(let file, let line, let key, let value, let allowed):
            "\(at(file, line))'\(key)' is \(value); allowed: \(allowed)."
        case .badDuration(let file, let line, let key, let value):
            "\(at(file, line))'\(key)' is \(value), not a duration; write it as \"30s\", \"5m\", \"1h30m\" or \"500ms\"."
        case .syntax(let file, let line, let message):
            "\(at(file, line))not valid TOML: \(message)."
        case .unreadable(let file, let reason):
            "\(file): cannot read the file: \(reason)."
        case .insecure(let file, let reason):
            "\(file): \(reason); anyone could change the policy in it. Make it writable by its owner only."
        case .unknownKey(let file, let line, let key, let table, let suggestion):
            "\(at(file, line))unknown key '\(key)' in \(table)"
                + (suggestion.map { "; did you mean '\($0)'?" } ?? ".")
        case .unknownPlugin(let file, let line, let name, let known):
            "\(at(file, line))unknown plugin '\(name)'; known plugins: \(known.joined(separator: ", "))."
        case .missingKey(let file, let line, let key, let table):
            "\(at(file, line))\(table) has no '\(key)'; add one."
        case .conflict(let file, let line, let message):
            "\(at(file, line))\(message)"
        case .lengthens(let file, let line, let key, let value, let siteFile, let siteLine, let siteValue):
            "\(at(file, line))'\(key)' is \(value), longer than \(siteValue) set by \(at(siteFile, siteLine, colon: false));"
                + " a user file may only shorten a site timeout."
        case .dropsPlugin(let file, let line, let name, let siteFile, let siteLine):
            "\(at(file, line))cannot disable plugin '\(name)': \(at(siteFile, siteLine, colon: false)) enables it,"
                + " and a user file may not remove a site plugin."
        case .pluginFailed(let file, let line, let name, let reason):
            "\(at(file, line))plugin '\(name)' cannot start: \(reason)"
        case .several(let errors):
            errors.map(\.description).joined(separator: "\n")
        }
    }

    /// The problems one by one: the cases of `.several`, or this error alone.
    public var all: [ConfigError] {
        if case .several(let errors) = self { return errors.flatMap(\.all) }
        return [self]
    }

    /// The file the problem is in.
    public var file: String {
        switch self {
        case .wrongType(let file, _, _, _), .outOfRange(let file, _, _, _, _), .badDuration(let file, _, _, _),
            .syntax(let file, _, _), .unreadable(let file, _), .insecure(let file, _),
            .unknownKey(let file, _, _, _, _), .unknownPlugin(let file, _, _, _), .missingKey(let file, _, _, _),
            .conflict(let file, _, _), .lengthens(let file, _, _, _, _, _, _), .dropsPlugin(let file, _, _, _, _),
            .pluginFailed(let file, _, _, _):
            file
        case .several(let errors): errors.first?.file ?? ""
        }
    }

    /// The line the problem is on; 0 for the file as a whole.
    public var line: Int {
        switch self {
        case .wrongType(_, let line, _, _), .outOfRange(_, let line, _, _, _), .badDuration(_, let line, _, _),
            .syntax(_, let line, _), .unknownKey(_, let line, _, _, _), .unknownPlugin(_, let line, _, _),
            .missingKey(_, let line, _, _), .conflict(_, let line, _), .lengthens(_, let line, _, _, _, _, _),
            .dropsPlugin(_, let line, _, _, _), .pluginFailed(_, let line, _, _):
            line
        case .unreadable, .insecure: 0
        case .several(let errors): errors.first?.line ?? 0
        }
    }

    /// One error for a list of them: nil for none, the error itself for one, `.several` otherwise.
    public static func combining(_ errors: [ConfigError]) -> ConfigError? {
        let flat = errors.flatMap(\.all)
        switch flat.count {
        case 0: return nil
        case 1: return flat[0]
        default: return .several(flat)
        }
    }

    /// EX_CONFIG: Ward stops before sign-on and changes nothing.
    public var exitStatus: ExitStatus { .configuration }
}

/// `FILE:LINE: `, or `FILE: ` when the line is unknown (0); without the colon after it inside a sentence.
private func at(_ file: String, _ line: Int, colon: Bool = true) -> String {
    let place = line > 0 ? "\(file):\(line)" : file
    return colon ? place + ": " : place
}
