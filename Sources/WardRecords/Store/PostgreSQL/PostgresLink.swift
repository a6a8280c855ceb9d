import Dispatch
import Glibc
import Logging
import PostgresNIO
import Synchronization
import WardCore

/// One connection to the records server, used synchronously from Ward's loop thread.
///
/// The server is the first of the site's `url` hosts that answers and, under
/// `target-session-attrs = "read-write"`, is not read-only (a standby in recovery), as libpq
/// picks one. A connection found lost is replaced by the same search, so a session outlives its
/// primary: after a standby is promoted only the command that was running fails, and says so.
///
/// Ward's event loop is synchronous (readline, ppoll); PostgresNIO is asynchronous. The
/// connection runs on an event-loop thread of its own, and the loop thread waits for each answer
/// on a semaphore, never longer than the site's `connect-timeout` or `statement-timeout`: past
/// it the connection is dropped (the server also ends the statement, `statement_timeout`), the
/// command fails, and the next one connects again. A lock or a hangup never waits on the
/// network: `close()` asks the channel to close and returns.
///
/// - Important: `Sendable` for `interrupt()`, which the termination watchdog calls from its own
///   thread; everything else is called from the loop's thread, one call at a time.
final class PostgresLink: Sendable {
    let settings: PostgresSettings
    private let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    /// A connection and the server it reached, which messages name.
    struct Connected: Sendable {
        let connection: PostgresConnection
        let endpoint: PostgresSettings.Endpoint
    }

    /// The open connection, behind a lock for `interrupt()`.
    let current = Mutex<Connected?>(nil)
    let logger: Logger = {
        // PostgresNIO logs queries at debug and trace; Ward logs none of it (patient data).
        var logger = Logger(label: "ward.records.postgres", factory: { _ in SwiftLogNoOpLogHandler() })
        logger.logLevel = .critical
        return logger
    }()

    /// This connection's `application_name`.
    let applicationName: String

    init(settings: PostgresSettings, applicationName: String = PostgresLink.applicationName) {
        self.settings = settings
        self.applicationName = applicationName
    }

    /// How Ward's connections name themselves to the server (`application_name`): what
    /// `pg_stat_activity` shows an administrator, and what `ward db migrate` counts as a session.
    static let applicationName = "ward"
    /// `ward db migrate`'s own: two migrating at once wait for each other's lock, and must not
    /// count each other as sessions.
    static let migrationApplicationName = "ward-migrate"

    deinit {
        close()
        group.shutdownGracefully { _ in }
    }

    var isOpen: Bool { current.withLock { $0 != nil } }

    /// The server connected to now, or every server of `url` when none is.
    var server: String { current.withLock { $0?.endpoint.description } ?? settings.serverList }

    /// Connects, unless connected: tries the servers in order and keeps the first that suits
    /// `target-session-attrs`.
    ///
    /// - Throws: `StoreError.unavailable` naming the server and why; with several servers, each
    ///   one and why it was passed over.
    func connect() throws {
        guard !isOpen else { return }
        var passedOver: [(PostgresSettings.Endpoint, String)] = []
        for endpoint in settings.endpoints {
            do {
                let connection = try open(endpoint)
                if settings.targetSessionAttrs == .readWrite, let reason = try readOnly(connection) {
                    Self.closeSoon(connection)
                    passedOver.append((endpoint, reason))
                    continue
                }
                current.withLock { $0 = Connected(connection: connection, endpoint: endpoint) }
                return
            } catch let error as StoreError {
                guard case .unavailable(_, let reason) = error else { throw error }
                passedOver.append((endpoint, reason))
            }
        }
        if passedOver.count == 1, let only = passedOver.first {
            throw StoreError.unavailable(server: only.0.description, reason: only.1)
        }
        throw StoreError.unavailable(
            server: settings.serverList,
            reason: "none will do ("
                + passedOver.map { "\($0.0.description): \($0.1)" }.joined(separator: "; ") + ")"
        )
    }

    /// A new connection to `endpoint`, bounded by `connect-timeout`.
    private func open(_ endpoint: PostgresSettings.Endpoint) throws -> PostgresConnection {
        let future = PostgresConnection.connect(
            on: group.next(),
            configuration: try configuration(endpoint),
            id: 1,
            logger: logger
        )
        do {
            return try Self.wait(for: future, upTo: settings.connectTimeout)
        } catch let error as Timeout {
            // The connection may still come: close it when it does.
            future.whenSuccess { Self.closeSoon($0) }
            throw StoreError.unavailable(server: endpoint.description, reason: error.text)
        } catch {
            throw StoreError.unavailable(
                server: endpoint.description,
                reason: Self.reason(connecting: error, to: endpoint)
            )
        }
    }

    /// Why the server of `connection` cannot take a note, or nil when it can. Asked as libpq
    /// asks it for `target_session_attrs=read-write`: a standby in recovery and a server whose
    /// `default_transaction_read_only` is on both answer `on`.
    private func readOnly(_ connection: PostgresConnection) throws -> String? {
        let answer: String?
        do {
            let rows = try Self.wait(
                for: connection.query("SHOW transaction_read_only", logger: logger),
                upTo: settings.connectTimeout
            )
            answer = try? rows.rows.first?.decode(String.self)
        } catch {
            return "it did not say whether it accepts writes"
        }
        return answer == "off" ? nil : Self.readOnlyReason
    }

    static let readOnlyReason =
        "it is read-only (a standby, or default_transaction_read_only is on) "
        + "and target-session-attrs is \"read-write\""

    /// The connection to use now: a lost one replaced first, a closed link connected again.
    ///
    /// A connection the server has already closed (a restart, a failover, an administrator's
    /// pg_terminate_backend, an idle timeout) is replaced before anything is sent: a query queued
    /// on it would wait out the whole statement-timeout, and then the command would fail when
    /// another server could have answered it.
    func liveConnection() throws -> Connected {
        if let stale = current.withLock({ $0 }), stale.connection.isClosed { drop(stale.connection) }
        try connect()
        guard let connected = current.withLock({ $0 }) else { throw StoreError.closed }
        return connected
    }

    /// Runs one statement and returns its rows, connecting first if the connection was lost.
    /// `limit` replaces the site's `statement-timeout` as the wait's bound, for a bulk load's
    /// statements (the server's own bound is then lifted by the caller).
    ///
    /// - Throws: `StoreError.database` with the SQLSTATE only (a server's message may quote a
    ///   value), or `StoreError.unavailable` when the server cannot be reached.
    /// Runs `body`, which decodes rows, with its failures in Ward's words: the driver's mention
    /// the column's bytes, which may be a patient's.
    static func decoded<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError.database(reason: "a row from the records server could not be read")
        }
    }

    @discardableResult
    func query(_ query: PostgresQuery, upTo limit: Duration? = nil) throws -> [PostgresRow] {
        try queries([query], upTo: limit)[0]
    }

    /// Runs statements one after another and returns each one's rows: all are handed to the
    /// connection's thread at once and the loop thread waits once, up to `statement-timeout`
    /// (or `limit`) for them all. A chart's sections, read one wait at a time, spent most of an
    /// `open` on loopback in the hand-over between the two threads, not on the server.
    ///
    /// - Throws: as `query`; the first statement that fails decides.
    func queries(_ queries: [PostgresQuery], upTo limit: Duration? = nil) throws -> [[PostgresRow]] {
        try rows(of: send(queries), upTo: limit)
    }

    /// Statements handed to the connection's thread, their answers not yet waited for
    /// (`rows(of:)`).
    struct Sent: Sendable {
        let answers: EventLoopFuture<[PostgresQueryResult]>
        let connected: Connected
    }

    /// Hands `queries` to the connection's thread and returns without waiting: statements sent
    /// later on this link run after them.
    func send(_ queries: [PostgresQuery]) throws -> Sent {
        let connected = try liveConnection()
        let connection = connected.connection
        let futures = queries.map { connection.query($0, logger: logger) }
        return Sent(answers: EventLoopFuture.whenAllSucceed(futures, on: connection.eventLoop), connected: connected)
    }

    /// The rows of statements `sent`, each one's; waits up to `statement-timeout` (or `limit`).
    ///
    /// - Throws: as `query`.
    func rows(of sent: Sent, upTo limit: Duration? = nil) throws -> [[PostgresRow]] {
        do {
            return try Self.wait(for: sent.answers, upTo: limit ?? settings.statementTimeout).map(\.rows)
        } catch {
            throw failure(error, on: sent.connected)
        }
    }

    /// A failed wait on `connected` in Ward's words. A timeout or a lost connection drops it, so
    /// the next statement connects again; a server's refusal on a live connection is named by its
    /// SQLSTATE only (the server's message may quote a value).
    func failure(_ error: any Error, on connected: Connected) -> StoreError {
        let connection = connected.connection
        let server = connected.endpoint.description
        if let error = error as? Timeout {
            drop(connection)
            return .database(reason: "the records server \(server) did not answer \(error.text)")
        }
        // A server going away says so first (57P01 admin shutdown, 08… connection
        // exceptions): the connection is dead then, whichever arrives first.
        if let error = error as? PSQLError, error.code == .server, let state = error.serverInfo?[.sqlState],
            !connection.isClosed, !state.hasPrefix("57P"), !state.hasPrefix("08")
        {
            switch state {
            case "57014":
                return .database(reason: "the statement took longer than statement-timeout")
            case "42501":
                // A session's user lacks a grant, or `ward db migrate`'s lacks CREATE.
                return .database(
                    reason: "the database user \(settings.user) lacks a privilege this needs (SQLSTATE 42501); "
                        + "see DATABASE in ward(1)"
                )
            case "25006":
                return readOnlyRefusal(connected)
            default:
                return .database(reason: Self.sqlStateReason + state)
            }
        }
        drop(connection)
        return .database(
            reason: "the connection to the records server \(server) was lost during this command, "
                + "which may not have been done; the next command connects again"
                + (settings.endpoints.count > 1 ? ", to the first of \(settings.serverList) that will do" : "")
        )
    }

    /// A write refused by a read-only server (SQLSTATE 25006: a standby, or a primary made
    /// read-only). Under `read-write` the server must have changed since the connection was
    /// made (demoted, or made read-only): the connection is dropped so that the next command
    /// looks for a writable server. Under `any` the site chose to read from standbys.
    private func readOnlyRefusal(_ connected: Connected) -> StoreError {
        let server = connected.endpoint.description
        switch settings.targetSessionAttrs {
        case .readWrite:
            drop(connected.connection)
            return .database(
                reason: "the records server \(server) is read-only now (a standby, or default_transaction_read_only "
                    + "is on), so nothing was stored; the next command connects to a server that accepts writes"
            )
        case .any:
            return .database(
                reason: "the records server \(server) is read-only (a standby, or default_transaction_read_only "
                    + "is on), so nothing was stored; target-session-attrs = \"any\" lets Ward read from "
                    + "a standby: set it to \"read-write\" to store notes"
            )
        }
    }

    /// Runs `body` between BEGIN and COMMIT; rolls back (or, past the timeout, drops the
    /// connection, which the server rolls back) when it throws.
    func transaction<T>(_ begin: PostgresQuery = "BEGIN", _ body: () throws -> T) throws -> T {
        try query(begin)
        do {
            let result = try body()
            try query("COMMIT")
            return result
        } catch {
            if isOpen { _ = try? query("ROLLBACK") }
            throw error
        }
    }

    /// Closes without waiting: the channel closes on its own thread. Idempotent.
    func close() {
        let connected = current.withLock { value in
            defer { value = nil }
            return value
        }
        if let connected { Self.closeSoon(connected.connection) }
    }

    /// Ends the statement running now by closing its connection; any thread.
    func interrupt() { close() }

    func drop(_ connection: PostgresConnection) {
        current.withLock { if $0?.connection === connection { $0 = nil } }
        Self.closeSoon(connection)
    }

    /// Asks the connection's thread to close it, and does not wait. The connection is kept until
    /// its channel has closed: PostgresNIO asserts that it is closed when it goes.
    private static func closeSoon(_ connection: PostgresConnection) {
        let closing: EventLoopFuture<Void> = connection.close()
        closing.whenComplete { _ in withExtendedLifetime(connection) {} }
    }

    private func configuration(_ endpoint: PostgresSettings.Endpoint) throws -> PostgresConnection.Configuration {
        var configuration: PostgresConnection.Configuration
        switch endpoint {
        case .tcp(let host, let port):
            let tls: PostgresConnection.Configuration.TLS
            switch settings.tls {
            case .disable: tls = .disable
            case .require:
                // Full verification: the chain to a trusted root, and the host name (or, for an
                // address, the address) the certificate names. `ca-file` replaces the system's roots.
                var client = TLSConfiguration.makeClientConfiguration()
                if let caFile = settings.caFile { client.trustRoots = .file(caFile) }
                do {
                    tls = .require(try NIOSSLContext(configuration: client))
                } catch {
                    throw StoreError.unavailable(
                        server: endpoint.description,
                        reason: settings.caFile.map { "the CA file \($0) could not be read as PEM certificates" }
                            ?? "the system's TLS trust store could not be loaded"
                    )
                }
            }
            configuration = .init(
                host: host,
                port: port,
                username: settings.user,
                password: settings.password,
                database: settings.database,
                tls: tls
            )
        case .socket(let directory, let port):
            configuration = .init(
                unixSocketPath: "\(directory)/.s.PGSQL.\(port)",
                username: settings.user,
                password: settings.password,
                database: settings.database
            )
        }
        // `connect-timeout` is Ward's own wait (`open`), which closes a connection that comes
        // later. NIO's timeout is a timer its event loop leaves armed once the connection is
        // made, so an idle session would wake `connect-timeout` after every connect (a sign-on's
        // check of the site's users makes one): it is set beyond any idle lock instead.
        configuration.options.connectTimeout = .minutes(30)
        let milliseconds = Int(settings.statementTimeout.seconds * 1000)
        configuration.options.additionalStartupParameters = [
            ("statement_timeout", "\(milliseconds)"), ("application_name", applicationName),
        ]
        return configuration
    }

    /// What went wrong connecting to `endpoint`, in Ward's words: never NIO's or the driver's text.
    static func reason(connecting error: any Error, to endpoint: PostgresSettings.Endpoint) -> String {
        // A Unix socket's connect fails before the driver wraps the error.
        guard let error = error as? PSQLError else { return reason(cause: error, to: endpoint) }
        switch error.code {
        case .server:
            switch error.serverInfo?[.sqlState] {
            case "28P01", "28000": return "the server refused the user name or password"
            case "3D000": return "no such database on the server"
            case "57P03", "53300": return "the server is not accepting connections now"
            case let state?: return "the server refused the connection (SQLSTATE \(state))"
            case nil: return "the server refused the connection"
            }
        case .sslUnsupported: return "the server does not offer TLS, which the site requires (tls = \"require\")"
        case .authMechanismRequiresPassword: return "the server asks for a password and the site gives none"
        case .unsupportedAuthMechanism: return "the server asks for an authentication method Ward does not support"
        case .failedToAddSSLHandler, .receivedUnencryptedDataAfterSSLRequest: return "TLS could not be set up"
        default:
            return reason(cause: error.underlying, to: endpoint)
        }
    }

    /// What a failure under the driver's (the socket's, TLS's) means, in Ward's words.
    private static func reason(cause: (any Error)?, to endpoint: PostgresSettings.Endpoint) -> String {
        var cause = cause
        // A TCP connect through NIO's Happy Eyeballs reports each address's failure inside.
        if let eyeballs = cause as? NIOConnectionError { cause = eyeballs.connectionErrors.first?.error ?? cause }
        if let underlying = cause as? IOError {
            switch underlying.errnoCode {
            case ECONNREFUSED: return "connection refused"
            case ENOENT: return "no server socket there"
            case EHOSTUNREACH, ENETUNREACH: return "no route to the host"
            default: break
            }
        }
        if cause is NIOConnectionError || cause is ChannelError {
            return "cannot connect (refused, unreachable or timed out)"
        }
        if let tls = cause as? NIOSSLExtraError, tls == .failedToValidateHostname,
            case .tcp(let host, _) = endpoint
        {
            // A certificate the CA vouches for, but for another server: the url names a
            // host the certificate does not, or someone else's server answers there.
            return "the server's TLS certificate does not name \(host) (it is another server's, or "
                + "the url should use a name the certificate gives)"
        }
        if cause is NIOSSLError || cause is BoringSSLError {
            return "the server's TLS certificate was not accepted"
        }
        return "cannot connect"
    }

    /// How a statement's failure is told: these words, then the SQLSTATE (never the server's
    /// text, which may quote a value).
    static let sqlStateReason = "PostgreSQL error SQLSTATE "

    /// A wait that ran out.
    struct Timeout: Error {
        let limit: Duration
        var text: String { "within \(limit.seconds.formatted()) s" }
    }

    /// Blocks the calling thread until `future` completes or `limit` passes.
    static func wait<T: Sendable>(for future: EventLoopFuture<T>, upTo limit: Duration) throws -> T {
        let result = Mutex<Result<T, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        future.whenComplete { outcome in
            result.withLock { $0 = outcome }
            done.signal()
        }
        let nanoseconds = Int(min(limit.seconds, 3600) * 1e9)
        guard done.wait(timeout: .now() + .nanoseconds(nanoseconds)) == .success else { throw Timeout(limit: limit) }
        return try result.withLock { $0! }.get()
    }
}

extension Double {
    /// `5`, `0.5`: a number of seconds as a site file would write it.
    fileprivate func formatted() -> String {
        self == rounded() ? String(Int(self)) : String(self)
    }
}
