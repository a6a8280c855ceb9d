import AuditLog
import WardCore

/// One thing `ward config check` found, as both of its formats report it: the place, how bad,
/// what is wrong and what to do.
///
/// A type of its own rather than `ConfigError` because a check also warns (a `[user.NAME]` table
/// that names nobody applies to nobody, but a session still runs), and because monitoring reads
/// the message and the fix as separate fields (`--format json`) where a person reads one line.
struct ConfigProblem: Equatable {
    enum Severity: String { case error, warning }

    /// The file the problem is in, or the path it is about (the home, the audit log).
    var file: String
    /// The line; 0 for the file as a whole.
    var line: Int
    /// The key or table concerned, as the site file spells it; nil when none is.
    var key: String?
    var severity: Severity
    var message: String
    /// What to do; nil when the message says it.
    var fix: String?
    /// The line a person reads, after `ward: `; for an error, the error's own description, as a
    /// session refusing the file would print it.
    var text: String

    init(file: String, line: Int, key: String?, severity: Severity, message: String, fix: String?) {
        self.file = file
        self.line = line
        self.key = key
        self.severity = severity
        self.message = message
        self.fix = fix
        let place = line > 0 ? "\(file):\(line): " : file.isEmpty ? "" : "\(file): "
        let label = severity == .warning ? "warning: " : ""
        text = place + label + message + (fix.map { " " + $0 } ?? "")
    }

    init(_ error: ConfigError) {
        let (key, message, fix) = error.parts
        self.init(file: error.file, line: error.line, key: key, severity: .error, message: message, fix: fix)
        text = error.description
    }

    /// One JSON object on one line, every field always there (`key` and `fix` may be null); text
    /// from the file (a key, a value) escaped as the audit log escapes it.
    var json: String {
        func string(_ text: String?) -> String {
            guard let text else { return "null" }
            var out: [UInt8] = []
            CanonicalJSON.appendString(text, to: &out)
            return String(decoding: out, as: UTF8.self)
        }
        return #"{"file":\#(string(file)),"line":\#(line),"key":\#(string(key)),"severity":"\#(severity.rawValue)","#
            + #""message":\#(string(message)),"fix":\#(string(fix))}"#
    }

    /// In file and line order, errors before warnings on one line.
    static func sorted(_ problems: [ConfigProblem]) -> [ConfigProblem] {
        problems.enumerated().sorted { a, b in
            let x = a.element
            let y = b.element
            return (x.file, x.line, x.severity == .error ? 0 : 1, a.offset)
                < (y.file, y.line, y.severity == .error ? 0 : 1, b.offset)
        }.map(\.element)
    }

    /// A sentence that carries its own fix, split there: "A. B." into "A." and "B.", else
    /// "A; b." into "A." and "B."; nil as the fix when it does neither.
    static func split(_ sentence: String) -> (message: String, fix: String?) {
        if let stop = sentence.firstRange(of: ". ") {
            return (String(sentence[..<stop.lowerBound]) + ".", String(sentence[stop.upperBound...]))
        }
        if let semicolon = sentence.ranges(of: "; ").last {
            let rest = sentence[semicolon.upperBound...]
            return (String(sentence[..<semicolon.lowerBound]) + ".", rest.prefix(1).uppercased() + rest.dropFirst())
        }
        return (sentence, nil)
    }
}

/// The tally that ends a check: 78 when any problem is an error, as a session would end.
struct ConfigCheckFailed: WardError {
    /// Every problem has been reported already, each on its own line.
    var description: String { "" }
    var exitStatus: ExitStatus { .configuration }
}

extension ConfigError {
    /// The key, the message and the fix, for `ConfigProblem`; together they say what
    /// `description` says.
    fileprivate var parts: (key: String?, message: String, fix: String?) {
        switch self {
        case .wrongType(_, _, let key, let expected):
            (key, "'\(key)' must be \(expected).", "Change the value of '\(key)'.")
        case .outOfRange(_, _, let key, let value, let allowed):
            (key, "'\(key)' is \(value).", "Use an allowed value: \(allowed).")
        case .badDuration(_, _, let key, let value):
            (key, "'\(key)' is \(value), not a duration.", "Write it as \"30s\", \"5m\", \"1h30m\" or \"500ms\".")
        case .syntax(_, _, let message):
            (nil, "not valid TOML: \(message).", "Correct the line; nothing after it was read.")
        case .unreadable(let file, let reason):
            (nil, "cannot read the file: \(reason).", "Check that \(file) is a UTF-8 text file this account may read.")
        case .insecure(let file, let reason):
            (
                nil, "\(reason); anyone could change the policy in it.",
                "Make it writable by its owner only (chmod go-w \(file))."
            )
        case .unknownKey(_, _, let key, let table, let suggestion):
            (
                key, "unknown key '\(key)' in \(table).",
                suggestion.map { "Did you mean '\($0)'?" } ?? "Remove it, or check its spelling in ward-site.toml(5)."
            )
        case .unknownPlugin(_, _, let name, let known):
            ("name", "unknown plugin '\(name)'.", "Use one of the known plugins: \(known.joined(separator: ", ")).")
        case .missingKey(_, _, let key, let table):
            (key, "\(table) has no '\(key)'.", "Add one.")
        case .conflict(_, _, let message):
            (nil, ConfigProblem.split(message).message, ConfigProblem.split(message).fix)
        case .lengthens(_, _, let key, let value, let siteFile, let siteLine, let siteValue):
            (
                key, "'\(key)' is \(value), longer than \(siteValue) set by \(siteFile):\(siteLine).",
                "A user file may only shorten a site timeout: shorten it or remove it."
            )
        case .dropsPlugin(_, _, let name, let siteFile, let siteLine):
            (
                nil, "cannot disable plugin '\(name)': \(siteFile):\(siteLine) enables it.",
                "Remove it from the user file: a user file may not remove a site plugin."
            )
        case .pluginFailed(_, _, let name, let reason):
            (
                name, "plugin '\(name)' cannot start: \(ConfigProblem.split(reason).message)",
                ConfigProblem.split(reason).fix
            )
        case .several(let errors):
            errors.first?.parts ?? (nil, "", nil)
        }
    }
}
