import TOMLKit

/// The site's policy: session limits, the plugin chain in order, per-user and per-role
/// overrides, and the user's own (stricter) preferences when a user file was read.
///
/// Read once at start, before sign-on; any error stops Ward with exit 78 (fail closed, as sudo
/// does with a bad sudo.conf). Every error found is reported, not just the first, so that
/// `ward config check` lists them all at once.
///
/// Precedence, as VistA orders its timeouts: a `[user.NAME]` table of the site file, then a
/// `[role.NAME]` table, then `[session]`, then Ward's defaults. The user file comes last and may
/// only make a limit stricter (`effectivePolicy(user:role:)`).
public struct SitePolicy: Sendable {
    /// What messages name when there is no site file.
    public static let builtInFile = "(built-in defaults)"
    /// The site file's path, or `builtInFile`.
    public let file: String
    /// `[session]` over Ward's defaults; what applies to a user no override names.
    public let session: SessionOverride
    /// `[user.NAME]` tables.
    public let users: [String: SessionOverride]
    /// `[role.NAME]` tables.
    public let roles: [Role: SessionOverride]
    /// The user file, when one was read and accepted (`applying(_:)`).
    public internal(set) var preferences: UserPreferences?
    /// `[exec]`: what `ward exec` may wrap; nothing without the table.
    public internal(set) var exec: ExecPolicy
    /// `[auth]`: who checks passwords; Ward's own store without the table.
    public internal(set) var auth: AuthSource = .ward
    /// The line of `[auth]`, 0 without one: where `ward config check` reports a PAM service
    /// this machine does not have.
    public internal(set) var authLine = 0
    /// `[ssh]`: what a command given to `ssh HOST COMMAND` may be; nothing without the table.
    public internal(set) var ssh: SSHPolicy
    /// `[chain]`: the plugins every session's chain must hold (`requireGuards()`).
    public internal(set) var chainRequirement: ChainRequirement
    /// `[session]`'s use notice and admin group (`banner`, `banner-file`, `admin-group`).
    public internal(set) var access = SessionAccessPolicy()
    /// `[records]`: where the patient records live; the home's SQLite file without the table.
    public internal(set) var records: RecordsPolicy

    private let pluginTables: [PluginTable]

    struct PluginTable: Sendable {
        var name: String
        var line: Int
        var values: [String: (value: PluginSettings.Value, line: Int)]
    }

    /// Ward's defaults, as if the site file were empty: `plugins.defaultChain`, each plugin with
    /// its own defaults (5m from `idle-timeout`, the log in the home, 15s).
    public static func builtIn(plugins: PluginRegistry) -> SitePolicy {
        SitePolicy(
            file: builtInFile,
            session: SessionOverride(file: builtInFile, line: 0),
            users: [:],
            roles: [:],
            pluginTables: defaultTables(plugins)
        )
    }

    /// The `[[plugin]]` tables of the default chain: one empty table each, on no line.
    private static func defaultTables(_ plugins: PluginRegistry) -> [PluginTable] {
        plugins.defaultChain.map { PluginTable(name: $0.name, line: 0, values: [:]) }
    }

    init(
        file: String,
        session: SessionOverride,
        users: [String: SessionOverride],
        roles: [Role: SessionOverride],
        pluginTables: [PluginTable],
        exec: ExecPolicy? = nil,
        ssh: SSHPolicy? = nil,
        chainRequirement: ChainRequirement? = nil
    ) {
        self.file = file
        self.session = session
        self.users = users
        self.roles = roles
        self.pluginTables = pluginTables
        self.exec = exec ?? .none(file: file)
        self.ssh = ssh ?? .none(file: file)
        self.chainRequirement = chainRequirement ?? .standard(file: file)
        self.records = .sqlite(file: file)
    }

    /// Refuses a chain that lacks a plugin `[chain] require` names (by default the audit log
    /// and the idle timer): what a session start and `ward config check` call, so that a site
    /// which replaced the default chain without them fails closed instead of running unguarded.
    public func requireGuards() throws(ConfigError) {
        try chainRequirement.check(chain: pluginNames)
    }

    /// The chain's settings in the site file's order, fresh on each call so that `unreadKeys`
    /// reflects one build only.
    public var plugins: [PluginSettings] {
        pluginTables.map { PluginSettings(name: $0.name, file: file, line: $0.line, values: $0.values) }
    }

    /// The chain's plugin names in order, less any the user file disabled (only ones the site
    /// does not enable can be, so this is the site's chain).
    public var pluginNames: [String] { pluginTables.map(\.name) }

    /// The line of the `[[plugin]]` that enables `name`, or nil when the chain has none.
    public func line(ofPlugin name: String) -> Int? { pluginTables.first { $0.name == name }?.line }

    /// The site-wide limits: `[session]` over Ward's defaults.
    public var sitePolicy: SessionPolicy { session.applied(to: .defaults) }

    /// The limits for `user` in `role`: the user's table, else the role's, else `[session]`,
    /// else Ward's default; then the user file wherever it is stricter.
    ///
    /// Should the combination leave `warn-before` no shorter than `idle-timeout` (a user file
    /// shortening the timeout below a role's warning), the warning comes at half the timeout.
    public func effectivePolicy(user: String?, role: Role?) -> SessionPolicy {
        var policy = sitePolicy
        if let role, let override = roles[role] { policy = override.applied(to: policy) }
        if let user, let override = users[user] { policy = override.applied(to: policy) }
        if let preferences {
            for (key, value) in preferences.session.values where value < policy[key] { policy[key] = value }
        }
        if policy.warnBefore >= policy.idleTimeout { policy.warnBefore = policy.idleTimeout / 2 }
        return policy
    }

    /// The loosest value `key` has anywhere in the site file (a user or role table may loosen
    /// it), with the file and line that set it: the ceiling a user file is held to.
    func ceiling(of key: SessionKey) -> (value: SessionSetting, line: Int) {
        var best = (value: sitePolicy[key], line: session.lines[key] ?? 0)
        for table in users.values.sorted(by: { $0.line < $1.line }) + roles.values.sorted(by: { $0.line < $1.line }) {
            if let value = table.values[key], value > best.value { best = (value, table.lines[key] ?? table.line) }
        }
        return best
    }
}

// MARK: - Parsing

extension SitePolicy {
    /// Parses a site file's text. Throws `ConfigError` (`.several` when more than one problem).
    ///
    /// - Parameter plugins: the plugins a `[[plugin]]` may name, and the chain without one.
    public static func parse(
        _ text: String,
        file: String,
        plugins: PluginRegistry
    )
        throws(ConfigError) -> SitePolicy
    {
        let (policy, errors) = parseReportingAll(text, file: file, plugins: plugins)
        if let error = ConfigError.combining(errors) { throw error }
        return policy!
    }

    /// The policy as far as the text allows, with every problem found, in line order; nil for
    /// text that is not TOML.
    ///
    /// A session refuses a file with any problem (`parse`); `ward config check` goes on to build
    /// the plugins of what parsed, so that an error in one table does not hide a plugin's in
    /// another until the first is fixed.
    public static func parseReportingAll(
        _ text: String,
        file: String,
        plugins: PluginRegistry
    ) -> (policy: SitePolicy?, errors: [ConfigError]) {
        let document: ConfigDocument
        do {
            document = try ConfigDocument(text: text, file: file)
        } catch {
            return (nil, [error])
        }
        var errors: [ConfigError] = []
        var session = SessionOverride(file: file, line: 0)
        var users: [String: SessionOverride] = [:]
        var roles: [Role: SessionOverride] = [:]
        var tables: [PluginTable]?
        var exec: ExecPolicy?
        var auth = AuthSource.ward
        var ssh: SSHPolicy?
        var requirement: ChainRequirement?
        var access = SessionAccessPolicy()
        var records = RecordsPolicy.sqlite(file: file)

        for key in document.keys(in: []) {
            let line = document.line(ofKey: key, in: [])
            switch key {
            case "session":
                guard let table = document.settings(at: ["session"], errors: &errors) else {
                    errors.append(.wrongType(file: file, line: line, key: "session", expected: "a table ([session])"))
                    continue
                }
                access = SessionAccessPolicy.read(table, errors: &errors)
                session = SessionOverride.read(table, errors: &errors)
                if let conflict = session.warningConflict(in: session.applied(to: .defaults)) {
                    errors.append(conflict)
                }
            case "plugin":
                tables = parsePlugins(document, plugins: plugins, errors: &errors)
            case "user", "role":
                guard let names = document.tableKeys(at: [key]) else {
                    errors.append(
                        .wrongType(file: file, line: line, key: key, expected: "tables such as [\(key).NAME]")
                    )
                    continue
                }
                for name in names {
                    let path = [key, name]
                    guard let table = document.settings(at: path, errors: &errors) else {
                        errors.append(
                            .wrongType(
                                file: file,
                                line: document.line(ofKey: name, in: [key]),
                                key: "\(key).\(name)",
                                expected: "a table ([\(key).\(name)])"
                            )
                        )
                        continue
                    }
                    let role = Role(rawValue: name)
                    if key == "role", role == nil {
                        errors.append(
                            .outOfRange(
                                file: file,
                                line: table.line,
                                key: "role.\(name)",
                                value: "\"\(name)\"",
                                allowed: Role.allCases.map { "\"\($0)\"" }.joined(separator: ", ")
                            )
                        )
                    }
                    let override = SessionOverride.read(table, errors: &errors)
                    if let conflict = override.warningConflict(in: override.applied(to: session.applied(to: .defaults)))
                    {
                        errors.append(conflict)
                    }
                    if key == "user" { users[name] = override } else if let role { roles[role] = override }
                }
            case "exec":
                exec = ExecPolicy.read(document, errors: &errors)
            case "auth":
                auth = AuthSource.read(document, errors: &errors)
            case "ssh":
                ssh = SSHPolicy.read(document, errors: &errors)
            case "chain":
                requirement = ChainRequirement.read(document, plugins: plugins, errors: &errors)
            case "records":
                records = RecordsPolicy.read(document, errors: &errors)
            default:
                let suggestion = ["session", "plugin", "user", "role", "exec", "auth", "ssh", "chain", "records"].first
                {
                    editDistance($0, key) <= 2
                }
                errors.append(
                    .unknownKey(file: file, line: line, key: key, table: "the site file", suggestion: suggestion)
                )
            }
        }
        let chain = tables ?? defaultTables(plugins)
        var required = requirement ?? .standard(file: file)
        // The line a missing guard is reported on: the first [[plugin]], or `plugin = []`.
        required.chainLine = tables?.first?.line ?? (tables == nil ? 0 : document.line(ofKey: "plugin", in: []))
        var policy = SitePolicy(
            file: file,
            session: session,
            users: users,
            roles: roles,
            pluginTables: chain,
            exec: exec,
            ssh: ssh,
            chainRequirement: required
        )
        policy.auth = auth
        if document.keys(in: []).contains("auth") { policy.authLine = document.line(ofKey: "auth", in: []) }
        policy.access = access
        policy.records = records
        return (policy, sortedByLine(errors))
    }

    private static func parsePlugins(
        _ document: ConfigDocument,
        plugins: PluginRegistry,
        errors: inout [ConfigError]
    )
        -> [PluginTable]
    {
        let file = document.file
        guard let count = document.arrayCount(at: ["plugin"]) else {
            errors.append(
                .wrongType(
                    file: file,
                    line: document.line(ofKey: "plugin", in: []),
                    key: "plugin",
                    expected: "an array of tables ([[plugin]])"
                )
            )
            return []
        }
        var result: [PluginTable] = []
        var seen: [String: Int] = [:]
        for i in 0..<count {
            let path = ["plugin", "[\(i)]"]
            let line = document.line(ofTable: path)
            guard let values = document.values(at: path, errors: &errors) else {
                errors.append(
                    .wrongType(file: file, line: line, key: "plugin", expected: "an array of tables ([[plugin]])")
                )
                continue
            }
            guard let nameValue = values["name"] else {
                errors.append(.missingKey(file: file, line: line, key: "name", table: "[[plugin]]"))
                continue
            }
            guard case .string(let name) = nameValue.value else {
                errors.append(.wrongType(file: file, line: nameValue.line, key: "name", expected: "a string"))
                continue
            }
            guard let plugin = plugins.plugin(named: name) else {
                errors.append(.unknownPlugin(file: file, line: nameValue.line, name: name, known: plugins.names))
                continue
            }
            if !plugin.isRepeatable, let first = seen[name] {
                errors.append(
                    .conflict(
                        file: file,
                        line: line,
                        message: "plugin '\(name)' is already in the chain at line \(first); remove one of them."
                    )
                )
                continue
            }
            seen[name] = line
            result.append(PluginTable(name: name, line: line, values: values))
        }
        return result
    }

    static func sortedByLine(_ errors: [ConfigError]) -> [ConfigError] {
        errors.flatMap(\.all).enumerated().sorted { a, b in
            (a.element.file, a.element.line, a.offset) < (b.element.file, b.element.line, b.offset)
        }.map(\.element)
    }
}

/// A parsed TOML file with the line of every key: TOMLKit for the values, `TOMLLineIndex` for
/// the lines. Values are turned into `PluginSettings.Value` on the way out.
struct ConfigDocument {
    let file: String
    private let root: TOMLTable
    private let index: TOMLLineIndex

    init(text: String, file: String) throws(ConfigError) {
        self.file = file
        index = TOMLLineIndex(scanning: text)
        if let malformed = index.malformed {
            throw .syntax(file: file, line: malformed.line, message: malformed.problem)
        }
        do {
            root = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            throw .syntax(file: file, line: max(error.source.begin.line, 1), message: trimmed(error.description))
        } catch {
            throw .syntax(file: file, line: 1, message: "\(error)")
        }
    }

    func line(ofKey key: String, in path: [String]) -> Int { index.line(ofKey: key, in: path) }
    func line(ofTable path: [String]) -> Int { index.line(ofTable: path) ?? 1 }

    private func node(at path: [String]) -> TOMLValueConvertible? {
        var node: TOMLValueConvertible = root
        for part in path {
            if part.hasPrefix("["), let i = Int(part.dropFirst().dropLast()) {
                guard let array = node.array, i < array.count else { return nil }
                node = array[i]
            } else {
                guard let table = node.table, let next = table[part] else { return nil }
                node = next
            }
        }
        return node
    }

    /// The keys of the table at `path`, sorted by line.
    func keys(in path: [String]) -> [String] {
        (node(at: path)?.table?.keys ?? []).sorted { index.line(ofKey: $0, in: path) < index.line(ofKey: $1, in: path) }
    }

    /// The keys of the table at `path`, nil when it is not a table.
    func tableKeys(at path: [String]) -> [String]? {
        node(at: path)?.table == nil ? nil : keys(in: path)
    }

    /// How many tables the array of tables at `path` holds; nil when it is not one.
    func arrayCount(at path: [String]) -> Int? {
        guard let array = node(at: path)?.array else { return nil }
        return array.allSatisfy({ $0.table != nil }) ? array.count : nil
    }

    /// The table at `path` as values with lines; nil when it is not a table. Values Ward cannot
    /// hold (dates) are reported in `errors` and left out.
    func values(at path: [String], errors: inout [ConfigError]) -> [String: (value: PluginSettings.Value, line: Int)]? {
        guard let table = node(at: path)?.table else { return nil }
        var result: [String: (value: PluginSettings.Value, line: Int)] = [:]
        for key in table.keys {
            let line = index.line(ofKey: key, in: path)
            if let value = convert(table[key]!, key: key, line: line, errors: &errors) {
                result[key] = (value, line)
            }
        }
        return result
    }

    /// `[session]`, `[user.alice]`: how the site file names the table at `path`.
    ///
    /// A loop rather than `path.joined(separator: ".")`: that generic call's first run, before
    /// the first prompt, looks up its associated types and with them searches every protocol
    /// conformance in the binary (about 290,000 instructions of start-up).
    static func tableHeader(_ path: [String]) -> String {
        var header = "["
        for (index, part) in path.enumerated() {
            if index > 0 { header += "." }
            header += part
        }
        return header + "]"
    }

    /// The table at `path` behind the typed accessors of `PluginSettings`.
    func settings(at path: [String], errors: inout [ConfigError]) -> PluginSettings? {
        guard let values = values(at: path, errors: &errors) else { return nil }
        return PluginSettings(
            table: Self.tableHeader(path),
            file: file,
            line: line(ofTable: path),
            values: values
        )
    }

    private func convert(
        _ value: TOMLValueConvertible,
        key: String,
        line: Int,
        errors: inout [ConfigError]
    )
        -> PluginSettings.Value?
    {
        switch value.type {
        case .string: return value.string.map { .string($0) }
        case .int: return value.int.map { .integer($0) }
        case .bool: return value.bool.map { .bool($0) }
        case .double: return value.double.map { .float($0) }
        case .array:
            guard let array = value.array else { return nil }
            var items: [PluginSettings.Value] = []
            for item in array {
                guard let converted = convert(item, key: key, line: line, errors: &errors) else { return nil }
                items.append(converted)
            }
            return .array(items)
        case .table:
            guard let table = value.table else { return nil }
            var fields: [String: PluginSettings.Value] = [:]
            for field in table.keys {
                guard let converted = convert(table[field]!, key: key, line: line, errors: &errors) else { return nil }
                fields[field] = converted
            }
            return .table(fields)
        case .date, .time, .dateTime:
            errors.append(.wrongType(file: file, line: line, key: key, expected: "quoted; Ward takes no TOML dates"))
            return nil
        }
    }
}

/// toml++'s message without its trailing period or newline.
private func trimmed(_ message: String) -> String {
    var message = Substring(message)
    while let last = message.last, last == "." || last == "\n" || last == " " { message = message.dropLast() }
    return String(message)
}
