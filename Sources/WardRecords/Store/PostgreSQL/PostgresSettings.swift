import FoundationEssentials
import WardCore

/// Where a site's shared records live and how to reach them: `[records]` of the site file
/// (man/ward-site.toml.5), once parsed and checked.
public struct PostgresSettings: Sendable, Equatable {
    /// A TCP host and port, or the directory of the server's Unix socket.
    public enum Endpoint: Sendable, Equatable {
        case tcp(host: String, port: Int)
        /// The directory holding `.s.PGSQL.<port>`, as libpq's `host=/dir`.
        case socket(directory: String, port: Int)

        /// How messages name the server: `host:port`, or the socket's path.
        public var description: String {
            switch self {
            case .tcp(let host, let port): host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
            case .socket(let directory, let port): "\(directory)/.s.PGSQL.\(port)"
            }
        }
    }

    public enum TLS: String, Sendable, Equatable {
        case require
        case disable
    }

    /// Tried in order when connecting, as libpq tries a URL's hosts: the first that answers and
    /// suits `targetSessionAttrs` is used, and a connection lost later is replaced the same way,
    /// so a session goes on after a standby is promoted.
    public var endpoints: [Endpoint]
    /// The first of `endpoints`; set, the only one.
    public var endpoint: Endpoint {
        get { endpoints[0] }
        set { endpoints = [newValue] }
    }
    /// How messages name the servers when no one of them is meant: `h1:5432, h2:5432`.
    public var serverList: String { endpoints.map(\.description).joined(separator: ", ") }
    public var targetSessionAttrs: RecordsPolicy.TargetSessionAttrs
    public var user: String
    public var database: String
    /// Read from the site's `password-file`; nil for none (a trusted socket, a client certificate).
    public var password: String?
    public var tls: TLS
    /// The CA certificates (PEM) the server's certificate must chain to; nil for the system's
    /// trust store.
    public var caFile: String?
    /// How long opening a connection (TCP, TLS, authentication) may take.
    public var connectTimeout: Duration
    /// How long one statement may take, on the server (`statement_timeout`) and in Ward's wait.
    public var statementTimeout: Duration

    public init(
        endpoint: Endpoint,
        user: String,
        database: String,
        password: String? = nil,
        tls: TLS = .require,
        connectTimeout: Duration = .seconds(5),
        statementTimeout: Duration = .seconds(5),
        caFile: String? = nil
    ) {
        self.init(
            endpoints: [endpoint],
            user: user,
            database: database,
            password: password,
            tls: tls,
            connectTimeout: connectTimeout,
            statementTimeout: statementTimeout,
            caFile: caFile
        )
    }

    public init(
        endpoints: [Endpoint],
        targetSessionAttrs: RecordsPolicy.TargetSessionAttrs = .readWrite,
        user: String,
        database: String,
        password: String? = nil,
        tls: TLS = .require,
        connectTimeout: Duration = .seconds(5),
        statementTimeout: Duration = .seconds(5),
        caFile: String? = nil
    ) {
        precondition(!endpoints.isEmpty, "a server to connect to")
        self.caFile = caFile
        self.endpoints = endpoints
        self.targetSessionAttrs = targetSessionAttrs
        self.user = user
        self.database = database
        self.password = password
        self.tls = tls
        self.connectTimeout = connectTimeout
        self.statementTimeout = statementTimeout
    }
}

extension Duration {
    /// The duration in seconds, for waits and messages.
    var seconds: Double {
        let (whole, fraction) = components
        return Double(whole) + Double(fraction) / 1e18
    }
}

extension PostgresSettings {
    /// The settings `[records]` gives, the password read from `password-file`, which must be the
    /// owner's alone (0600 or 0400), as a batch's password file must.
    ///
    /// - Throws: `AuthError` for a password file that is missing, open to others or empty (its
    ///   message names the file and the `chmod` that fixes it).
    public init(policy: RecordsPolicy, url: RecordsPolicy.ServerURL) throws {
        var password: String?
        if let path = policy.passwordFile {
            let secret = try PasswordSource.file(path: path).read()
            // PostgresNIO takes the password as a String; it lives as long as the store.
            password = secret.withBytes { String(decoding: $0, as: UTF8.self) }
        }
        self.init(
            endpoints: url.servers.map {
                $0.isSocket ? .socket(directory: $0.host, port: $0.port) : .tcp(host: $0.host, port: $0.port)
            },
            targetSessionAttrs: policy.targetSessionAttrs,
            user: url.user,
            database: url.database,
            password: password,
            // A socket's connection never uses TLS, whatever this says (`PostgresLink`).
            tls: policy.tls == .require ? .require : .disable,
            connectTimeout: policy.connectTimeout,
            statementTimeout: policy.statementTimeout,
            caFile: policy.caFile
        )
    }
}
