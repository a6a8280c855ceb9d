import Glibc

/// The site's `[exec]` table: which programs `ward exec` may wrap, and how it guards them.
///
/// ```toml
/// [exec]
/// allow = [                            # a bare name is looked up on /usr/local/bin:/usr/bin:/bin
///     "psql",
///     { program = "sqlite3", args = ["-safe", "-readonly"], user-args = "files", read = ["/srv/extracts"] },
/// ]
/// on-lock = "freeze"                     # freeze (SIGSTOP, redraw after unlocking) | kill
/// record-input = false                   # true: the audit log holds every typed line (patient data)
/// lock-key = "Ctrl-Backslash Ctrl-Backslash"  # one or two Ctrl keys that lock at once; "none"
/// redraw-key = "none"                    # a key sent after unlocking under freeze, e.g. "Ctrl-L"
/// kill-grace = "2s"                      # on-lock = "kill": SIGHUP, then SIGKILL after this
/// args = []                              # put before the user's arguments
/// user-args = "any"                      # any | files (names inside read/write) | none
/// read = []                              # absolute paths readable beyond the system's
/// write = []                             # absolute paths writable (and readable)
/// may-run = []                           # absolute paths of helpers it may start
/// sandbox = "on"                         # "off": Ward's own rights (a config check warning)
///
/// [exec.commands.psql]                   # one allow entry, as written, with its own rules
/// on-lock = "kill"
/// record-input = true
/// ```
///
/// Without an `[exec]` table, or with an empty `allow`, nothing may be wrapped: a site that
/// installs Ward has not thereby allowed its users to run anything under it. A name is
/// looked up on a fixed PATH, never the user's, so a `psql` in the user's `~/bin` is not the
/// `psql` the site allowed; an absolute path must match an entry exactly.
///
/// An allowed program is trusted only as far as its rules say: sqlite3 with `.shell`, psql with
/// `\!` and `less` with `!` each start any program, and each opens any file its user names. So
/// the rules that bound it (its arguments, the paths of the sandbox, the helpers it may start)
/// sit beside its entry, inline or in its own table, where whoever allows a program sees them.
public struct ExecPolicy: Equatable, Sendable {
    /// What happens to the program when the session locks.
    public enum OnLock: String, Equatable, Sendable, CaseIterable {
        /// SIGSTOP to its process groups; after unlocking SIGCONT and a redraw. Its memory stays.
        case freeze
        /// SIGHUP, then SIGKILL after `kill-grace`; after unlocking it starts again. Its memory
        /// is gone with it.
        case kill
    }

    /// What a user may add after the site's own arguments (`user-args`).
    public enum UserArguments: String, Equatable, Sendable, CaseIterable {
        /// Anything: the sandbox alone bounds what the program can do with it.
        case any
        /// Only names of files the program may read or write (`read`, `write`); no options.
        case files
        /// Nothing: the program runs with the site's arguments alone.
        case none
    }

    /// The rules for one program: the table's own, else `[exec]`'s, else Ward's defaults.
    public struct Rules: Equatable, Sendable {
        public var onLock: OnLock = .freeze
        public var recordInput = false
        /// Bytes sent to the program after it is thawed (`redraw-key`); empty for none.
        public var redrawKey: [UInt8] = []
        /// Arguments the site puts before the user's (`args`), e.g. `["-safe", "-readonly"]`.
        public var arguments: [String] = []
        /// What the user may add after them (`user-args`).
        public var userArguments: UserArguments = .any
        /// Absolute paths (files or directories) the program may read beyond the system's
        /// program and library directories (`read`).
        public var read: [String] = []
        /// Absolute paths it may write, and read (`write`).
        public var write: [String] = []
        /// Absolute paths of programs it may start (`may-run`); every other exec fails with EPERM.
        public var mayRun: [String] = []
        /// Whether the kernel's sandbox is required (`sandbox = "on"`, the default); `"off"`
        /// runs the program with Ward's own rights, which `ward config check` warns of.
        public var sandbox = true

        public init() {}
    }

    /// Where a bare name is looked up, in order: fixed, so that the user's PATH cannot choose
    /// which program runs.
    public static let searchPath = ["/usr/local/bin", "/usr/bin", "/bin"]

    /// The default hot key that locks at once: Ctrl-\ twice (a program needs Ctrl-\ rarely, for
    /// SIGQUIT; one alone reaches it after `KeySequence.pause`).
    public static let defaultLockKey: [[UInt8]] = [[0x1C], [0x1C]]

    /// The site file, for messages.
    public var file: String
    /// The line of `[exec]`, 0 when there is none.
    public var line: Int
    /// The `allow` entries as written.
    public var allow: [String]
    /// `[exec]`'s own rules.
    public var defaults: Rules
    /// `[exec.commands.ENTRY]` tables, by entry as written.
    public var commands: [String: Rules]
    /// The hot key that locks, one or two keys; empty for none.
    public var lockKey: [[UInt8]]
    /// How long a program has to end after SIGHUP before SIGKILL.
    public var killGrace: Duration
    /// What `ward config check` warns of: valid settings that give away more than a site may
    /// think (`sandbox = "off"`), or keys that no longer do anything.
    public var warnings: [ExecPolicy.Warning] = []
    /// Every `read`, `write` and `may-run` path with its line, for the checks that need the file
    /// system and the home (`pathProblems`), which only `ward config check` makes.
    var pathSettings: [PathSetting] = []

    /// No `[exec]` table: nothing may be wrapped.
    public static func none(file: String) -> ExecPolicy {
        ExecPolicy(
            file: file,
            line: 0,
            allow: [],
            defaults: Rules(),
            commands: [:],
            lockKey: defaultLockKey,
            killGrace: .seconds(2),
            warnings: [],
            pathSettings: []
        )
    }

    /// The program `command` (as typed after `ward exec --`) names, if the site allows it.
    ///
    /// The command and every entry are resolved to a path (a bare name on `searchPath`), and
    /// the command is allowed when an entry resolves to the same path.
    ///
    /// - Throws: `ExecRefusal`: not allowed (77), or allowed but not found (127) or not
    ///   executable (126).
    public func program(
        for command: String,
        exists: (String) -> Bool = Self.isExecutable
    ) throws(ExecRefusal)
        -> ExecProgram
    {
        guard !allow.isEmpty else { throw .nothingAllowed(command: command, file: file) }
        guard command.hasPrefix("/") || !command.contains("/") else {
            throw .notAllowed(command: command, file: file, line: line, allowed: allow)
        }
        let path = Self.resolve(command, exists: exists)
        guard let path, let entry = allow.first(where: { Self.resolve($0, exists: exists) == path }) else {
            if path == nil, allow.contains(command) {
                throw .notFound(command: command, searched: command.hasPrefix("/") ? [] : Self.searchPath)
            }
            throw .notAllowed(command: command, file: file, line: line, allowed: allow)
        }
        return ExecProgram(entry: entry, path: path, rules: commands[entry] ?? defaults)
    }

    /// An absolute path as it is, when it exists; a bare name on `searchPath`.
    static func resolve(_ name: String, exists: (String) -> Bool) -> String? {
        if name.hasPrefix("/") { return exists(name) ? name : nil }
        guard !name.isEmpty, !name.contains("/") else { return nil }
        return searchPath.map { $0 + "/" + name }.first(where: exists)
    }

    /// A regular file this user may execute.
    public static func isExecutable(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG && access(path, X_OK) == 0
    }
}

/// One program `ward exec` may run: the allow entry that let it, its path, and its rules.
public struct ExecProgram: Equatable, Sendable {
    /// The `allow` entry as written (the key of its `[exec.commands.ENTRY]` table).
    public var entry: String
    public var path: String
    public var rules: ExecPolicy.Rules

    /// The name the program is known by in lines' sources and messages: its file name.
    public var name: String { String(path.split(separator: "/").last ?? Substring(path)) }
}

/// Why `ward exec` will not run a command. Said before anyone signs on.
public enum ExecRefusal: WardError, Equatable {
    /// The site's `[exec] allow` does not hold it.
    case notAllowed(command: String, file: String, line: Int, allowed: [String])
    /// The site file has no `[exec]` table, or its `allow` is empty.
    case nothingAllowed(command: String, file: String)
    /// Allowed, but no such program on Ward's fixed PATH (or at the absolute path).
    case notFound(command: String, searched: [String])
    /// An argument the program's `user-args` does not let the user add.
    case argumentNotAllowed(program: String, argument: String, reason: String)
    /// The kernel cannot sandbox the program (no Landlock, no seccomp), and the site has not
    /// turned its sandbox off.
    case sandboxUnavailable(program: String, reason: String)

    public var description: String {
        switch self {
        case .notAllowed(let command, let file, let line, let allowed):
            "'\(command)' is not allowed by \(line > 0 ? "\(file):\(line)" : file) ([exec] allow: "
                + allowed.map { "\"\($0)\"" }.joined(separator: ", ") + "). Ask the site to add it."
        case .nothingAllowed(let command, let file):
            "'\(command)' is not allowed: \(file) allows no program for 'ward exec' (no [exec] allow list)."
        case .notFound(let command, let searched):
            searched.isEmpty
                ? "\(command): no such executable file."
                : "\(command): not found in \(searched.joined(separator: ":")) (Ward never uses your PATH)."
        case .argumentNotAllowed(let program, let argument, let reason):
            "\(program): the argument '\(Sanitizer.line(argument))' is not allowed: \(reason)"
        case .sandboxUnavailable(let program, let reason):
            "\(program) cannot run: \(reason). Ward runs a program only inside its sandbox; "
                + "the site may turn it off for this program (sandbox = \"off\"), at the cost described in ward-site.toml(5)."
        }
    }

    public var exitStatus: ExitStatus {
        switch self {
        case .notAllowed, .nothingAllowed: .authenticationFailed
        case .notFound: ExitStatus(rawValue: 127)
        case .argumentNotAllowed: .authenticationFailed
        case .sandboxUnavailable: .unavailable
        }
    }
}

// MARK: - Parsing

extension ExecPolicy {
    /// Something `ward config check` reports on standard error without failing: the policy is
    /// valid, but gives away more than a site may think, or holds a key that no longer does
    /// anything.
    public struct Warning: Equatable, Sendable, CustomStringConvertible {
        public var file: String
        public var line: Int
        public var message: String

        public var description: String { (line > 0 ? "\(file):\(line): " : "\(file): ") + message }
    }

    /// One `read`, `write` or `may-run` path as the site file wrote it, normalised.
    struct PathSetting: Equatable, Sendable {
        var key: String
        var path: String
        var line: Int
    }

    /// Reads `[exec]` from the site file; problems go to `errors`, each naming FILE:LINE.
    static func read(_ document: ConfigDocument, errors: inout [ConfigError]) -> ExecPolicy {
        let file = document.file
        var policy = ExecPolicy.none(file: file)
        policy.line = document.line(ofTable: ["exec"])
        guard let table = document.settings(at: ["exec"], errors: &errors) else {
            errors.append(.wrongType(file: file, line: policy.line, key: "exec", expected: "a table ([exec])"))
            return policy
        }
        let inline = readAllow(table, document: document, into: &policy, errors: &errors)
        policy.defaults = readRules(table, over: Rules(), into: &policy, errors: &errors)
        do {
            if let text = try table.string("lock-key") {
                if let keys = KeyName.parseSequence(text), keys.count <= 2 {
                    policy.lockKey = keys
                } else {
                    errors.append(
                        .outOfRange(
                            file: file,
                            line: table.line(of: "lock-key"),
                            key: "lock-key",
                            value: "\"\(text)\"",
                            allowed:
                                "one or two keys such as \"Ctrl-Backslash Ctrl-Backslash\" or \"Ctrl-]\", or \"none\""
                        )
                    )
                }
            }
        } catch { errors += (error as? ConfigError)?.all ?? [] }
        do {
            policy.killGrace = try table.duration("kill-grace", in: .milliseconds(100)...(.seconds(60))) ?? .seconds(2)
        } catch { errors += (error as? ConfigError)?.all ?? [] }
        // Each program's rules over `[exec]`'s, and the table they were read from, for the
        // line of a warning.
        var ruleTables: [String: PluginSettings] = [:]
        for (entry, settings) in inline {
            policy.commands[entry] = readRules(settings, over: policy.defaults, into: &policy, errors: &errors)
            errors += settings.unknownKeyErrors
            ruleTables[entry] = settings
        }
        if table.has("commands") {
            _ = try? table.table("commands")
            if let names = document.tableKeys(at: ["exec", "commands"]) {
                for name in names {
                    let path = ["exec", "commands", name]
                    let header = name.contains("/") || name.contains(".") ? "\"\(name)\"" : name
                    guard let commandTable = document.settings(at: path, errors: &errors) else {
                        errors.append(
                            .wrongType(
                                file: file,
                                line: document.line(ofKey: name, in: ["exec", "commands"]),
                                key: "exec.commands.\(header)",
                                expected: "a table ([exec.commands.NAME])"
                            )
                        )
                        continue
                    }
                    if let entry = ruleTables[name] {
                        errors.append(
                            .conflict(
                                file: file,
                                line: commandTable.line,
                                message: "[exec.commands.\(header)] gives rules to \"\(name)\", and so does its "
                                    + "inline entry in 'allow' at line \(entry.line); keep one of them."
                            )
                        )
                        continue
                    }
                    if !policy.allow.contains(name) {
                        errors.append(
                            .conflict(
                                file: file,
                                line: commandTable.line,
                                message: "[exec.commands.\(header)] is for a program 'allow' does not list; "
                                    + "add \"\(name)\" to allow, or remove the table."
                            )
                        )
                    }
                    policy.commands[name] = readRules(
                        commandTable,
                        over: policy.defaults,
                        into: &policy,
                        errors: &errors
                    )
                    errors += commandTable.unknownKeyErrors
                    ruleTables[name] = commandTable
                }
            } else {
                errors.append(
                    .wrongType(
                        file: file,
                        line: table.line(of: "commands"),
                        key: "commands",
                        expected: "tables such as [exec.commands.psql]"
                    )
                )
            }
        }
        errors += table.unknownKeyErrors
        var warned: Set<String> = []
        for entry in policy.allow where warned.insert(entry).inserted {
            guard !(policy.commands[entry] ?? policy.defaults).sandbox else { continue }
            let own = ruleTables[entry].flatMap { $0.has("sandbox") ? $0 : nil }
            policy.warnings.append(
                Warning(
                    file: file,
                    line: (own ?? table).line(of: "sandbox"),
                    message: "\"\(Sanitizer.line(entry))\" runs outside the sandbox (sandbox = \"off\"): it may start "
                        + "any program and read or write whatever the Ward account can, the records, the credential "
                        + "store and the audit log included; see ward-site.toml(5), THE [exec] TABLE."
                )
            )
        }
        policy.warnings.sort { $0.line < $1.line }
        return policy
    }

    /// `allow`'s entries: names and absolute paths, and inline tables `{ program = "sqlite3", … }`
    /// whose other keys are that program's rules, returned to be read over `[exec]`'s.
    private static func readAllow(
        _ table: PluginSettings,
        document: ConfigDocument,
        into policy: inout ExecPolicy,
        errors: inout [ConfigError]
    ) -> [(entry: String, settings: PluginSettings)] {
        let file = table.file
        guard let (value, _) = table.value("allow") else { return [] }
        let expected = "an array of program names, absolute paths and tables such as { program = \"sqlite3\" }"
        guard case .array(let items) = value else {
            errors.append(.wrongType(file: file, line: table.line(of: "allow"), key: "allow", expected: expected))
            return []
        }
        var inline: [(entry: String, settings: PluginSettings)] = []
        for (index, item) in items.enumerated() {
            let line = document.line(ofKey: "[\(index)]", in: ["exec", "allow"])
            let entry: String
            switch item {
            case .string(let name):
                entry = name
            case .table(let fields):
                guard let program = fields["program"] else {
                    errors.append(.missingKey(file: file, line: line, key: "program", table: "an inline allow entry"))
                    continue
                }
                guard case .string(let name) = program else {
                    errors.append(.wrongType(file: file, line: line, key: "program", expected: "a string"))
                    continue
                }
                if let earlier = inline.first(where: { $0.entry == name }) {
                    errors.append(
                        .conflict(
                            file: file,
                            line: line,
                            message: "\"\(name)\" is listed with its rules twice in 'allow' (lines "
                                + "\(earlier.settings.line) and \(line)); keep one of them."
                        )
                    )
                    continue
                }
                let settings = PluginSettings(
                    table: "the allow entry for \"\(name)\"",
                    file: file,
                    line: line,
                    values: fields.mapValues { (value: $0, line: line) }
                )
                _ = try? settings.string("program")
                inline.append((name, settings))
                entry = name
            default:
                errors.append(.wrongType(file: file, line: line, key: "allow", expected: expected))
                continue
            }
            if entry.isEmpty || entry.contains("\0") || (entry.contains("/") && !entry.hasPrefix("/")) {
                errors.append(
                    .outOfRange(
                        file: file,
                        line: line,
                        key: "allow",
                        value: "\"\(entry)\"",
                        allowed:
                            "a program's name (looked up on \(searchPath.joined(separator: ":"))) or an absolute path"
                    )
                )
            }
            policy.allow.append(entry)
        }
        return inline
    }

    /// The keys a program's rules take, over `base`: `on-lock`, `record-input`, `redraw-key`,
    /// `args`, `user-args`, `read`, `write`, `may-run`, `sandbox`, and the retired
    /// `record-arguments`, still accepted so that an old site file keeps working.
    private static func readRules(
        _ table: PluginSettings,
        over base: Rules,
        into policy: inout ExecPolicy,
        errors: inout [ConfigError]
    ) -> Rules {
        var rules = base
        do {
            if let choice = try table.choice("on-lock", from: OnLock.allCases.map(\.rawValue)) {
                rules.onLock = OnLock(rawValue: choice) ?? .freeze
            }
        } catch { errors += (error as? ConfigError)?.all ?? [] }
        do { rules.recordInput = try table.bool("record-input") ?? rules.recordInput } catch {
            errors += (error as? ConfigError)?.all ?? []
        }
        do {
            if try table.bool("record-arguments") != nil {
                policy.warnings.append(
                    Warning(
                        file: table.file,
                        line: table.line(of: "record-arguments"),
                        message: "'record-arguments' no longer does anything: exec-start always records the "
                            + "program's arguments (sanitized); remove the key."
                    )
                )
            }
        } catch { errors += (error as? ConfigError)?.all ?? [] }
        do {
            if let text = try table.string("redraw-key") {
                if let keys = KeyName.parseSequence(text), keys.count <= 1 {
                    rules.redrawKey = keys.first ?? []
                } else {
                    errors.append(
                        .outOfRange(
                            file: table.file,
                            line: table.line(of: "redraw-key"),
                            key: "redraw-key",
                            value: "\"\(text)\"",
                            allowed: "one key such as \"Ctrl-L\", or \"none\""
                        )
                    )
                }
            }
        } catch { errors += (error as? ConfigError)?.all ?? [] }
        do {
            if let arguments = try table.strings("args") {
                if let bad = arguments.first(where: { $0.contains("\0") }) {
                    errors.append(
                        .outOfRange(
                            file: table.file,
                            line: table.line(of: "args"),
                            key: "args",
                            value: PluginSettings.Value.string(bad).description,
                            allowed: "arguments without NUL (a program's arguments cannot hold one)"
                        )
                    )
                } else {
                    rules.arguments = arguments
                }
            }
        } catch { errors += (error as? ConfigError)?.all ?? [] }
        do {
            if let choice = try table.choice("user-args", from: UserArguments.allCases.map(\.rawValue)) {
                rules.userArguments = UserArguments(rawValue: choice) ?? rules.userArguments
            }
        } catch { errors += (error as? ConfigError)?.all ?? [] }
        rules.read = readPaths("read", table, default: rules.read, into: &policy, errors: &errors)
        rules.write = readPaths("write", table, default: rules.write, into: &policy, errors: &errors)
        rules.mayRun = readPaths("may-run", table, default: rules.mayRun, into: &policy, errors: &errors)
        if let (value, line) = table.value("sandbox") {
            switch value {
            case .string("on"): rules.sandbox = true
            case .string("off"): rules.sandbox = false
            default:
                errors.append(
                    .outOfRange(
                        file: table.file,
                        line: line,
                        key: "sandbox",
                        value: value.description,
                        allowed: "\"on\", \"off\""
                    )
                )
            }
        }
        return rules
    }

    /// `read`, `write` or `may-run`: absolute paths, normalised (`//`, `/./` and a trailing `/`
    /// dropped). `..` is refused rather than resolved: what a path names must be plain from the
    /// site file, as a reader of it would take it.
    private static func readPaths(
        _ key: String,
        _ table: PluginSettings,
        default base: [String],
        into policy: inout ExecPolicy,
        errors: inout [ConfigError]
    ) -> [String] {
        let paths: [String]
        do {
            guard let written = try table.strings(key) else { return base }
            paths = written
        } catch {
            errors += (error as? ConfigError)?.all ?? []
            return base
        }
        let line = table.line(of: key)
        var result: [String] = []
        for path in paths {
            let problem: String? =
                if path.contains("\0") {
                    "holds a NUL"
                } else if !path.hasPrefix("/") {
                    "is not an absolute path"
                } else if path.split(separator: "/").contains("..") {
                    "holds '..'"
                } else {
                    nil
                }
            if let problem {
                errors.append(
                    .outOfRange(
                        file: table.file,
                        line: line,
                        key: key,
                        value: PluginSettings.Value.string(path).description + ", which \(problem)",
                        allowed: key == "may-run"
                            ? "absolute paths of programs, such as \"/usr/bin/less\", without '..'"
                            : "absolute paths of files or directories, such as \"/srv/extracts\", without '..'"
                    )
                )
                continue
            }
            let normal = ExecProgram.normalised(path)
            result.append(normal)
            policy.pathSettings.append(PathSetting(key: key, path: normal, line: line))
        }
        return result
    }

    /// `[exec]` as a site file would write it, for `ward config check`: every program with
    /// rules of its own in a table, each key spelled out, so that what a program may do is read
    /// in one place whether the site wrote it inline, in a table or in `[exec]`.
    public var summary: String {
        func quoted(_ items: [String]) -> String {
            "[" + items.map { PluginSettings.Value.string($0).description }.joined(separator: ", ") + "]"
        }
        func rules(_ r: Rules) -> String {
            "on-lock = \"\(r.onLock.rawValue)\"\nrecord-input = \(r.recordInput)\n"
                + "redraw-key = \"\(KeyName.describe([r.redrawKey]))\"\n"
                + "args = \(quoted(r.arguments))\nuser-args = \"\(r.userArguments.rawValue)\"\n"
                + "read = \(quoted(r.read))\nwrite = \(quoted(r.write))\nmay-run = \(quoted(r.mayRun))\n"
                + "sandbox = \"\(r.sandbox ? "on" : "off")\"\n"
        }
        var out = "\n[exec]" + (line > 0 ? "    # line \(line)\n" : "    # built-in default: nothing may be wrapped\n")
        out += "allow = \(quoted(allow))\n" + rules(defaults)
        out += "lock-key = \"\(KeyName.describe(lockKey))\"\nkill-grace = \"\(DurationText.format(killGrace))\"\n"
        for (name, r) in commands.sorted(by: { $0.key < $1.key }) {
            out += "\n[exec.commands.\(PluginSettings.Value.string(name).description)]\n" + rules(r)
        }
        return out
    }
}

/// Keys as a site file names them: `Ctrl-A` … `Ctrl-Z`, `Ctrl-@`, `Ctrl-[`, `Ctrl-\` (also
/// `Ctrl-Backslash`, which needs no escaping), `Ctrl-]`, `Ctrl-^`, `Ctrl-_`; several separated
/// by spaces; `none` for no key.
public enum KeyName {
    /// The keys' bytes, one array per key; `[]` for `none`; nil when a name is not one of these.
    public static func parseSequence(_ text: String) -> [[UInt8]]? {
        let words = text.split(separator: " ").map(String.init)
        if words == ["none"] { return [] }
        guard !words.isEmpty else { return nil }
        var keys: [[UInt8]] = []
        for word in words {
            if word.lowercased() == "ctrl-backslash" {
                keys.append([0x1C])
                continue
            }
            guard word.lowercased().hasPrefix("ctrl-"), word.count == 6, let c = word.last?.uppercased().utf8.first,
                (0x40...0x5F).contains(c)
            else { return nil }
            keys.append([c - 0x40])
        }
        return keys
    }

    /// `Ctrl-Backslash Ctrl-Backslash`, `Ctrl-L`, or `none`: names a site file can hold
    /// without escaping.
    public static func describe(_ keys: [[UInt8]]) -> String {
        let names = keys.filter { !$0.isEmpty }.map { key in
            key == [0x1C] ? "Ctrl-Backslash" : "Ctrl-" + String(decoding: key.map { $0 + 0x40 }, as: UTF8.self)
        }
        return names.isEmpty ? "none" : names.joined(separator: " ")
    }
}
