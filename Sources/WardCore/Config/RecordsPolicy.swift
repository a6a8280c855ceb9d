import Glibc

/// The site's `[records]` table: where the patient records live.
///
/// ```toml
/// [records]
/// backend = "postgresql"                                  # "sqlite" (the default): the home's file
/// url = "postgresql://ward@db1.example.org:5432,db2.example.org:5432/records"  # or %2Frun%2Fpostgresql
/// target-session-attrs = "read-write"                     # or "any": a standby will do
/// password-file = "/etc/ward/records.password"             # 0600, the owner's alone
/// tls = "require"                                          # "disable" only toward this host
/// ca-file = "/etc/ward/records-ca.pem"                     # trust this CA, not the system's
/// connect-timeout = "5s"
/// statement-timeout = "5s"
/// time-zone = "America/Los_Angeles"                       # days and times shown; default: the system's
/// ```
///
/// A site, not a user, chooses: a user file cannot name a backend. The password is never in the
/// URL (URLs reach logs and `ps`); it is read from `password-file` when the store opens.
public struct RecordsPolicy: Equatable, Sendable {
    public enum Backend: String, Equatable, Sendable {
        case sqlite
        case postgresql
    }

    /// The PostgreSQL servers `url` names, tried in order, and who connects to which database.
    public struct ServerURL: Equatable, Sendable {
        /// One host of `url`: a name or an address, or, for the socket form, the socket's
        /// directory (starting with `/`).
        public struct Server: Equatable, Sendable {
            public var host: String
            public var port: Int
            public init(host: String, port: Int) {
                self.host = host
                self.port = port
            }

            /// True for the Unix-socket form: `host` is a directory.
            public var isSocket: Bool { host.hasPrefix("/") }

            /// True for a server on this host: a socket, `localhost`, or a loopback address
            /// (127.0.0.0/8, ::1, ::ffff:127.0.0.0/104). The only servers Ward talks to in the
            /// clear: a name is taken as written (`localhost` is this host by convention, any
            /// other name is asked of DNS, which an attacker on the path may answer).
            public var isLocal: Bool {
                if isSocket || host.lowercased() == "localhost" { return true }
                var v4 = in_addr()
                if inet_pton(AF_INET, host, &v4) == 1 { return UInt32(bigEndian: v4.s_addr) >> 24 == 127 }
                var v6 = in6_addr()
                guard inet_pton(AF_INET6, host, &v6) == 1 else { return false }
                let bytes = withUnsafeBytes(of: v6) { Array($0) }
                if bytes[0..<15].allSatisfy({ $0 == 0 }) && bytes[15] == 1 { return true }
                return bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF
                    && bytes[12] == 127
            }

            /// How messages name it: `host:port`, `[v6]:port`, or the socket directory.
            public var description: String {
                isSocket ? "\(host)/.s.PGSQL.\(port)" : host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
            }
        }

        public var user: String
        /// At least one; a session connects to the first that answers and suits
        /// `target-session-attrs`, as libpq does with a host list.
        public var servers: [Server]
        public var database: String
        /// `?target_session_attrs=` of the URL, when given.
        public var targetSessionAttrs: TargetSessionAttrs?

        public init(
            user: String,
            servers: [Server],
            database: String,
            targetSessionAttrs: TargetSessionAttrs? = nil
        ) {
            self.user = user
            self.servers = servers
            self.database = database
            self.targetSessionAttrs = targetSessionAttrs
        }

        /// One server.
        public init(user: String, host: String, port: Int, database: String) {
            self.init(user: user, servers: [Server(host: host, port: port)], database: database)
        }

        /// True when every server is a Unix socket: then TLS has nothing to do.
        public var isSocket: Bool { servers.allSatisfy(\.isSocket) }
    }

    /// Which of `url`'s servers a session may use, as libpq's `target_session_attrs`.
    public enum TargetSessionAttrs: String, Equatable, Sendable, CaseIterable {
        /// One that accepts writes: a standby (in recovery) or a server whose
        /// `default_transaction_read_only` is on is passed over, since notes could not be stored.
        case readWrite = "read-write"
        /// The first that answers, a standby too: reading only, notes refused.
        case any
    }

    public enum TLS: String, Equatable, Sendable {
        case require
        case disable
    }

    public static let defaultTimeout: Duration = .seconds(5)
    static let timeoutRange: ClosedRange<Duration> = .milliseconds(100) ... .seconds(600)

    /// The site file and the line of `[records]` (0 without it), for messages.
    public var file: String
    public var line: Int
    public var backend: Backend = .sqlite
    /// Set when `backend = "postgresql"`.
    public var url: ServerURL?
    public var passwordFile: String?
    public var tls: TLS = .require
    /// `target-session-attrs`, or the URL's `target_session_attrs`.
    public var targetSessionAttrs: TargetSessionAttrs = .readWrite
    /// The CA certificates (PEM) the server's certificate must chain to, in place of the
    /// system's trust store; nil for the system's.
    public var caFile: String?
    public var connectTimeout: Duration = defaultTimeout
    public var statementTimeout: Duration = defaultTimeout
    /// The zone chart days and times, sign-on and lockout times are shown in (`LocalTime`);
    /// nil for the system's. A key of `[records]` whatever the backend: the site, not the
    /// server or the terminal, decides which day a clinician reads.
    public var timeZone: String?

    /// The zone `LocalTime` shows times in for this site.
    public var shownZone: LocalTime.Zone { timeZone.map(LocalTime.Zone.named) ?? .system }

    /// No `[records]`: the home's SQLite file.
    public static func sqlite(file: String) -> RecordsPolicy { RecordsPolicy(file: file, line: 0) }

    /// `[records]` as a site file would write it, for `ward config check`. Names the password
    /// file, never its contents.
    public var summary: String {
        let origin = line > 0 ? "    # line \(line)\n" : "    # built-in default: the home's own SQLite file\n"
        var text = "\n[records]" + origin + "backend = \"\(backend.rawValue)\"\n"
        if let timeZone { text += "time-zone = \"\(timeZone)\"\n" }
        guard backend == .postgresql, let url else { return text }
        text += "url = \"\(Self.format(url))\"\n"
        if let passwordFile { text += "password-file = \"\(passwordFile)\"\n" }
        if url.servers.count > 1 || targetSessionAttrs != .readWrite {
            text += "target-session-attrs = \"\(targetSessionAttrs.rawValue)\"\n"
        }
        if !url.isSocket { text += "tls = \"\(tls.rawValue)\"\n" }
        if let caFile { text += "ca-file = \"\(caFile)\"\n" }
        text += "connect-timeout = \"\(DurationText.format(connectTimeout))\"\n"
        text += "statement-timeout = \"\(DurationText.format(statementTimeout))\"\n"
        return text
    }

    static func format(_ url: ServerURL) -> String {
        let hosts = url.servers.map { server in
            let host =
                server.isSocket
                ? percentEncoded(server.host) : server.host.contains(":") ? "[\(server.host)]" : server.host
            return "\(host):\(server.port)"
        }
        let query = url.targetSessionAttrs.map { "?target_session_attrs=\($0.rawValue)" } ?? ""
        return "postgresql://\(percentEncoded(url.user))@\(hosts.joined(separator: ","))/"
            + percentEncoded(url.database) + query
    }

    private static func percentEncoded(_ text: String) -> String {
        var result = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                result += "%" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)
            }
        }
        return result
    }

    /// Parses `postgresql://USER@HOST:PORT[,HOST:PORT…]/DB[?target_session_attrs=…]` (or
    /// `postgres://`), as libpq reads a URI; a HOST may be `[v6 address]` or a percent-encoded
    /// socket directory (`%2Frun%2Fpostgresql`), and a port left out is 5432. Returns the reason
    /// for anything else: a password in the URL, another parameter, no user, no database.
    public static func parseURL(_ text: String) -> Result<ServerURL, URLProblem> {
        var rest = Substring(text)
        if rest.hasPrefix("postgresql://") {
            rest = rest.dropFirst("postgresql://".count)
        } else if rest.hasPrefix("postgres://") {
            rest = rest.dropFirst("postgres://".count)
        } else {
            return .failure(.scheme)
        }
        guard let at = rest.firstIndex(of: "@") else { return .failure(.noUser) }
        let userPart = rest[..<at]
        if userPart.contains(":") { return .failure(.passwordInURL) }
        guard let user = decode(userPart), !user.isEmpty else { return .failure(.noUser) }
        rest = rest[rest.index(after: at)...]
        if rest.contains("#") { return .failure(.parameters) }
        var targetSessionAttrs: TargetSessionAttrs?
        if let question = rest.firstIndex(of: "?") {
            for parameter in rest[rest.index(after: question)...].split(separator: "&") {
                let pair = parameter.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard pair.count == 2, pair[0] == "target_session_attrs" else { return .failure(.parameters) }
                guard let value = decode(pair[1]).flatMap(TargetSessionAttrs.init(rawValue:)) else {
                    return .failure(.targetSessionAttrs)
                }
                targetSessionAttrs = value
            }
            rest = rest[..<question]
        }
        guard let slash = rest.firstIndex(of: "/") else { return .failure(.noDatabase) }
        guard let database = decode(rest[rest.index(after: slash)...]), !database.isEmpty, !database.contains("/")
        else { return .failure(.noDatabase) }
        var servers: [ServerURL.Server] = []
        for part in hostList(rest[..<slash]) {
            switch parseServer(part) {
            case .success(let server): servers.append(server)
            case .failure(let problem): return .failure(problem)
            }
        }
        return .success(
            ServerURL(user: user, servers: servers, database: database, targetSessionAttrs: targetSessionAttrs)
        )
    }

    /// `h1:5432,[::1]:5433,h3` split at the commas outside brackets.
    private static func hostList(_ text: Substring) -> [Substring] {
        var parts: [Substring] = []
        var start = text.startIndex
        var inBrackets = false
        for index in text.indices {
            switch text[index] {
            case "[": inBrackets = true
            case "]": inBrackets = false
            case "," where !inBrackets:
                parts.append(text[start..<index])
                start = text.index(after: index)
            default: break
            }
        }
        parts.append(text[start...])
        return parts
    }

    /// One `HOST[:PORT]` of the host list.
    private static func parseServer(_ text: Substring) -> Result<ServerURL.Server, URLProblem> {
        var hostPort = text
        var host: String
        if hostPort.hasPrefix("[") {
            guard let close = hostPort.firstIndex(of: "]") else { return .failure(.host) }
            host = String(hostPort[hostPort.index(after: hostPort.startIndex)..<close])
            hostPort = hostPort[hostPort.index(after: close)...]
        } else {
            let end = hostPort.firstIndex(of: ":") ?? hostPort.endIndex
            guard let decoded = decode(hostPort[..<end]) else { return .failure(.host) }
            host = decoded
            hostPort = hostPort[end...]
        }
        guard !host.isEmpty, !host.contains(where: { $0 == " " || $0 == "@" || $0 == "," }) else {
            return .failure(.host)
        }
        var port = 5432
        if !hostPort.isEmpty {
            guard hostPort.hasPrefix(":"), let number = Int(hostPort.dropFirst()), (1...65535).contains(number) else {
                return .failure(.port)
            }
            port = number
        }
        return .success(ServerURL.Server(host: host, port: port))
    }

    /// What is wrong with a `url`, as the error message says it.
    public enum URLProblem: Error, Equatable, Sendable {
        case scheme, noUser, passwordInURL, parameters, targetSessionAttrs, noDatabase, host, port

        public var text: String {
            switch self {
            case .scheme: "it must start with postgresql://"
            case .noUser: "it must name the database user: postgresql://USER@HOST:PORT[,HOST:PORT…]/DB"
            case .passwordInURL: "a password does not go in the URL; put it in password-file (0600)"
            case .parameters: "of its parameters (?…) only target_session_attrs is read; use the [records] keys"
            case .targetSessionAttrs: "target_session_attrs must be read-write or any"
            case .noDatabase: "it must name the database: postgresql://USER@HOST:PORT[,HOST:PORT…]/DB"
            case .host: "each host must be a name, an address, [an IPv6 address] or a %2F-encoded socket directory"
            case .port: "the port must be a number from 1 to 65535"
            }
        }
    }

    /// Percent-decodes; nil for a bad escape or bytes that are not UTF-8.
    private static func decode(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                return nil
            }
            bytes.append(high << 4 | low)
        }
        guard !bytes.contains(0) else { return nil }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

extension RecordsPolicy {
    /// Reads `[records]` from the site file; problems go to `errors`, each naming FILE:LINE.
    static func read(_ document: ConfigDocument, errors: inout [ConfigError]) -> RecordsPolicy {
        let file = document.file
        var policy = RecordsPolicy(file: file, line: document.line(ofTable: ["records"]))
        guard let table = document.settings(at: ["records"], errors: &errors) else {
            errors.append(
                .wrongType(
                    file: file,
                    line: document.line(ofKey: "records", in: []),
                    key: "records",
                    expected: "a table ([records])"
                )
            )
            return policy
        }
        var backendKnown = true
        do {
            if let backend = try table.choice("backend", from: ["sqlite", "postgresql"]) {
                policy.backend = Backend(rawValue: backend) ?? .sqlite
            }
        } catch {
            backendKnown = false
            errors += (error as? ConfigError)?.all ?? []
        }
        var serverKeys: [String] = []
        do {
            if let text = try table.string("url") {
                serverKeys.append("url")
                switch parseURL(text) {
                case .success(let url): policy.url = url
                case .failure(let problem):
                    // The value is not repeated: a mistyped URL may hold a password.
                    errors.append(
                        .outOfRange(
                            file: file,
                            line: table.line(of: "url"),
                            key: "url",
                            value: "(the URL given)",
                            allowed: problem.text
                        )
                    )
                }
            }
        } catch { errors += (error as? ConfigError)?.all ?? [] }
        do {
            if let path = try table.string("password-file") {
                serverKeys.append("password-file")
                if path.hasPrefix("/") {
                    policy.passwordFile = path
                } else {
                    errors.append(
                        .outOfRange(
                            file: file,
                            line: table.line(of: "password-file"),
                            key: "password-file",
                            value: "\"\(path)\"",
                            allowed: "an absolute path"
                        )
                    )
                }
            }
        } catch { errors += (error as? ConfigError)?.all ?? [] }
        do {
            if let attrs = try table.choice(
                "target-session-attrs",
                from: TargetSessionAttrs.allCases.map(\.rawValue)
            ) {
                serverKeys.append("target-session-attrs")
                policy.targetSessionAttrs = TargetSessionAttrs(rawValue: attrs) ?? .readWrite
            }
        } catch { errors += (error as? ConfigError)?.all ?? [] }
        if let fromURL = policy.url?.targetSessionAttrs {
            if table.has("target-session-attrs"), fromURL != policy.targetSessionAttrs {
                errors.append(
                    .conflict(
                        file: file,
                        line: table.line(of: "target-session-attrs"),
                        message: "'target-session-attrs' is \"\(policy.targetSessionAttrs.rawValue)\" but the url's "
                            + "target_session_attrs is \(fromURL.rawValue); keep one of them."
                    )
                )
            }
            policy.targetSessionAttrs = fromURL
        }
        do {
            if let tls = try table.choice("tls", from: ["require", "disable"]) {
                serverKeys.append("tls")
                policy.tls = TLS(rawValue: tls) ?? .require
            }
        } catch { errors += (error as? ConfigError)?.all ?? [] }
        do {
            if let path = try table.string("ca-file") {
                serverKeys.append("ca-file")
                if path.hasPrefix("/") {
                    policy.caFile = path
                    if let problem = caFileProblem(path) {
                        errors.append(.conflict(file: file, line: table.line(of: "ca-file"), message: problem))
                    }
                } else {
                    errors.append(
                        .outOfRange(
                            file: file,
                            line: table.line(of: "ca-file"),
                            key: "ca-file",
                            value: "\"\(path)\"",
                            allowed: "an absolute path"
                        )
                    )
                }
            }
        } catch { errors += (error as? ConfigError)?.all ?? [] }
        do {
            if let timeout = try table.duration("connect-timeout", in: timeoutRange) {
                serverKeys.append("connect-timeout")
                policy.connectTimeout = timeout
            }
        } catch { errors += (error as? ConfigError)?.all ?? [] }
        do {
            if let timeout = try table.duration("statement-timeout", in: timeoutRange) {
                serverKeys.append("statement-timeout")
                policy.statementTimeout = timeout
            }
        } catch { errors += (error as? ConfigError)?.all ?? [] }
        do {
            if let zone = try table.string("time-zone") {
                if let problem = LocalTime.zoneProblem(zone) {
                    errors.append(
                        .outOfRange(
                            file: file,
                            line: table.line(of: "time-zone"),
                            key: "time-zone",
                            value: "\"\(zone)\"",
                            allowed: problem
                        )
                    )
                } else {
                    policy.timeZone = zone
                }
            }
        } catch { errors += (error as? ConfigError)?.all ?? [] }
        errors += table.unknownKeyErrors
        switch policy.backend {
        case .postgresql:
            if !table.has("url") {
                errors.append(.missingKey(file: file, line: policy.line, key: "url", table: "[records]"))
            }
            if let url = policy.url, url.isSocket, table.has("tls"), policy.tls == .require {
                errors.append(
                    .conflict(
                        file: file,
                        line: table.line(of: "tls"),
                        message:
                            "TLS is for TCP; a Unix socket stays on this host. Remove 'tls' or use a host name in 'url'."
                    )
                )
            }
            if let url = policy.url, policy.tls == .disable,
                let remote = url.servers.first(where: { !$0.isLocal })
            {
                errors.append(
                    .conflict(
                        file: file,
                        line: table.line(of: "tls"),
                        message: "tls = \"disable\" would send the password and the records in the clear to "
                            + "\(remote.description), which is not this host; remove 'tls' (TLS is required, "
                            + "with 'ca-file' for the site's own CA), or use a Unix socket or a loopback address in 'url'."
                    )
                )
            }
            if table.has("ca-file"), policy.tls == .disable || policy.url?.isSocket == true {
                errors.append(
                    .conflict(
                        file: file,
                        line: table.line(of: "ca-file"),
                        message:
                            "'ca-file' verifies the server's TLS certificate; it needs a TCP 'url' and tls = \"require\"."
                    )
                )
            }
        case .sqlite where backendKnown:
            for key in serverKeys {
                errors.append(
                    .conflict(
                        file: file,
                        line: table.line(of: key),
                        message: "'\(key)' is for backend = \"postgresql\"; add it to [records], or remove '\(key)'."
                    )
                )
            }
        case .sqlite:
            break  // the backend's own error says what is wrong
        }
        return policy
    }
}

extension RecordsPolicy {
    /// Why the `ca-file` at `path` must not be trusted, or nil. Whoever may write it chooses
    /// which servers Ward believes are the site's (a record server of their own, a password
    /// sent to it), so, like `password-file` and `banner-file`, it is refused when its group or
    /// others may write it. A file not there yet, or not readable, is left to the connection,
    /// which says it cannot be read (exit 69): a site file may be checked on a host without it. A symbolic
    /// link is followed (CA files often are links), and the file it reaches is checked.
    static func caFileProblem(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            return "ca-file \"\(path)\" is not a regular file."
        }
        guard info.st_mode & 0o022 == 0 else {
            let mode = String(info.st_mode & 0o777, radix: 8)
            return "ca-file \"\(path)\" may be written by its group or others (mode \(mode)); chmod go-w it."
        }
        return nil
    }
}
