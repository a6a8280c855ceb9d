import Foundation
import Glibc
import Synchronization

/// A real PostgreSQL 15: a fresh `initdb` in a temporary directory, listening on a Unix socket
/// in that directory and on a private loopback port, stopped and removed by `stop()` (or when
/// the value goes).
///
/// Tests share one server per test process (`shared()`, or `sharedTLS()` for TLS) and keep
/// apart by each making databases and roles of their own (`createDatabase`, `uniqueName`):
/// an `initdb` and a start cost seconds on a loaded machine, a `CREATE DATABASE` a fraction of
/// one. Only a test that stops the server, or needs it stopped, makes its own with `init`.
/// The shared servers are stopped when the process exits (`atexit`).
///
/// PostgreSQL refuses to run as root, and tests run as root in CI: then every server program
/// runs as the `postgres` system user (made by the Debian package) through `runuser`, in a
/// directory that user owns. Otherwise they run as the current user.
///
/// Local (socket) connections are trusted; loopback TCP connections need the superuser's
/// password (`scram-sha-256`), so a test can check a password file end to end.
///
/// With `tls: true` the server also offers TLS (`ssl = on`) with a certificate made now with
/// `openssl`: a test CA of its own (`caFile`) signs a certificate for `localhost` and
/// `127.0.0.1`.
public final class PostgresServer: @unchecked Sendable {
    /// Where the Debian package `postgresql-15` puts the server's programs.
    public static let binaries = "/usr/lib/postgresql/15/bin"

    /// Why there is no server.
    public enum Failure: Error, CustomStringConvertible {
        case notInstalled(String, package: String = "postgresql-15")
        case didNotStart(String)
        case commandFailed(String)

        public var description: String {
            switch self {
            case .notInstalled(let program, let package):
                "\(program) not found: install the Debian package '\(package)' (scripts/install-deps)"
            case .didNotStart(let why): "PostgreSQL did not start: \(why)"
            case .commandFailed(let why): "psql failed: \(why)"
            }
        }
    }

    /// The server's directory: the cluster (`data/`), its log and its socket.
    public let directory: String
    /// The directory holding the socket `.s.PGSQL.<port>`: the host of a Unix-socket URL.
    public var socketDirectory: String { directory }
    /// The loopback port the server listens on.
    public let port: Int
    /// The superuser, made by `initdb`.
    public let user = "ward_test"
    /// The superuser's password, for loopback TCP connections.
    public let password = "test-password-not-a-secret"
    /// With `tls`: the PEM certificate of the CA that signed the server's certificate.
    public var caFile: String { directory + "/ca.crt" }
    /// The system user the server runs as; nil for the current user.
    private let runAs: String?
    private var running = true

    /// The server the tests of this process share, started by the first to ask. Never stop it:
    /// other tests are using it.
    public static func shared() throws(Failure) -> PostgresServer { try plain.get() }

    /// A shared server that also offers TLS, as `shared()`.
    public static func sharedTLS() throws(Failure) -> PostgresServer { try withTLS.get() }

    private static let plain = Result { () throws(Failure) in try startShared(tls: false) }
    private static let withTLS = Result { () throws(Failure) in try startShared(tls: true) }

    /// The shared servers started so far: the exit hook stops these, and only these.
    private static let started = Mutex<[PostgresServer]>([])

    private static func startShared(tls: Bool) throws(Failure) -> PostgresServer {
        let server = try PostgresServer(tls: tls)
        let first = started.withLock {
            $0.append(server)
            return $0.count == 1
        }
        if first {
            atexit {
                for server in PostgresServer.started.withLock({ $0 }) { server.stop() }
            }
        }
        return server
    }

    /// A name no other test of this process has had from this server: `base_N`. For databases
    /// and roles, which on a shared server would otherwise collide between tests in parallel.
    public func uniqueName(_ base: String) -> String {
        let number = names.withLock {
            $0 += 1
            return $0
        }
        return "\(base)_\(number)"
    }

    private let names = Mutex(0)

    /// The names the TLS certificate is made for (`subjectAltName`) unless a test asks for others.
    public static let certificateNames = ["DNS:localhost", "IP:127.0.0.1"]

    /// Makes a cluster and starts it; throws `.notInstalled` naming the package when a program is
    /// missing. With `tls`, the server's certificate names `certificateNames`.
    public init(tls: Bool = false, certificateNames: [String] = PostgresServer.certificateNames) throws(Failure) {
        try Self.requirePrograms(["initdb", "pg_ctl", "postgres", "psql"])
        if tls, access(Self.openssl, X_OK) != 0 { throw .notInstalled(Self.openssl, package: "openssl") }
        (runAs, directory) = try Self.makeDirectory()
        port = Self.freePort()
        let passwordFile = directory + "/pw"
        _ = FileManager.default.createFile(atPath: passwordFile, contents: Data((password + "\n").utf8))
        if let runAs, let entry = getpwnam(runAs) { chown(passwordFile, entry.pointee.pw_uid, entry.pointee.pw_gid) }
        // Tests in parallel share the server: room for each one's connections and Ward's.
        var options =
            "-k \(directory) -p \(port) -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=300"
        do {
            if tls {
                try makeCertificates(names: certificateNames)
                options += " -c ssl=on -c ssl_cert_file=\(directory)/server.crt -c ssl_key_file=\(directory)/server.key"
            }
            try run(
                "initdb",
                [
                    "-D", directory + "/data", "-U", user, "--pwfile", passwordFile, "--auth-local=trust",
                    "--auth-host=scram-sha-256", "--no-sync", "-E", "UTF8", "--locale=C",
                ]
            )
            try run(
                "pg_ctl",
                [
                    "-D", directory + "/data", "-l", directory + "/log", "-w", "-t", "30", "-o", options, "start",
                ]
            )
        } catch {
            let log = (try? String(contentsOfFile: directory + "/log", encoding: .utf8)) ?? ""
            stop()
            throw .didNotStart("\(error)\n\(log)")
        }
    }

    /// A streaming standby of `primary`: its base backup (`pg_basebackup -R`, which writes the
    /// `primary_conninfo` and `standby.signal` that make it follow), started on a port of its
    /// own and open for reading (hot standby). Stopped and removed as any server is.
    public init(standbyOf primary: PostgresServer) throws(Failure) {
        try Self.requirePrograms(["pg_ctl", "postgres", "psql"])
        try Self.requirePrograms(["pg_basebackup"], package: "postgresql-client-15")
        (runAs, directory) = try Self.makeDirectory()
        port = Self.freePort()
        do {
            try run(
                "pg_basebackup",
                [
                    "-h", primary.socketDirectory, "-p", "\(primary.port)", "-U", user, "-D", directory + "/data",
                    "-R", "-X", "stream", "-c", "fast", "--no-sync",
                ]
            )
            try run(
                "pg_ctl",
                [
                    "-D", directory + "/data", "-l", directory + "/log", "-w", "-t", "60", "-o",
                    "-k \(directory) -p \(port) -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=300",
                    "start",
                ]
            )
        } catch {
            let log = (try? String(contentsOfFile: directory + "/log", encoding: .utf8)) ?? ""
            stop()
            throw .didNotStart("\(error)\n\(log)")
        }
    }

    /// Ends this server's recovery (`pg_ctl promote`), returning once it accepts writes.
    public func promote() throws(Failure) {
        do {
            try run("pg_ctl", ["-D", directory + "/data", "-w", "-t", "60", "promote"])
        } catch {
            throw .commandFailed("pg_ctl promote: \(error)")
        }
    }

    /// Throws `.notInstalled`, naming `package`, for the first of `programs` that is missing.
    private static func requirePrograms(_ programs: [String], package: String = "postgresql-15") throws(Failure) {
        for program in programs where access("\(binaries)/\(program)", X_OK) != 0 {
            throw .notInstalled("\(binaries)/\(program)", package: package)
        }
    }

    /// Who runs the server programs (nil for the current user), and a new directory they own.
    private static func makeDirectory() throws(Failure) -> (String?, String) {
        let runAs = getuid() == 0 ? "postgres" : nil
        var template = Array("/tmp/ward-pg-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw .didNotStart("mkdtemp: \(String(cString: strerror(errno)))") }
        let directory = String(cString: made)
        if let runAs {
            guard let entry = getpwnam(runAs) else {
                throw .didNotStart("no system user '\(runAs)': install the Debian package 'postgresql-15'")
            }
            chown(directory, entry.pointee.pw_uid, entry.pointee.pw_gid)
        }
        return (runAs, directory)
    }

    deinit { stop() }

    /// Stops the server at once and removes its directory. Idempotent.
    public func stop() {
        guard running else { return }
        running = false
        if FileManager.default.fileExists(atPath: directory + "/data/postmaster.pid") {
            _ = try? run("pg_ctl", ["-D", directory + "/data", "-m", "immediate", "-w", "stop"])
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Runs SQL as the superuser through `psql` on the socket, in database `database`; returns
    /// its output (unaligned, tuples only).
    @discardableResult
    public func psql(_ sql: String, database: String = "postgres") throws(Failure) -> String {
        do {
            return try run(
                "psql",
                [
                    "-h", directory, "-p", "\(port)", "-U", user, "-d", database, "-X", "-A", "-t", "-v",
                    "ON_ERROR_STOP=1", "-c", sql,
                ]
            )
        } catch {
            throw .commandFailed("\(error)")
        }
    }

    /// A new, empty database, owned by the superuser; its name, `name` made unique
    /// (`uniqueName`), so that tests sharing the server never share a database.
    public func createDatabase(_ name: String) throws(Failure) -> String {
        let unique = uniqueName(name)
        try psql("CREATE DATABASE \(unique)")
        return unique
    }

    /// Where the Debian package `openssl` puts the program.
    public static let openssl = "/usr/bin/openssl"

    /// A CA, and a server certificate it signs for `names` (P-256 keys, valid two days), in the
    /// server's directory; the key is the server user's alone, as PostgreSQL requires.
    private func makeCertificates(names: [String]) throws {
        let ca = directory + "/ca"
        let server = directory + "/server"
        try Self.makeCA(at: ca)
        try Self.execute(
            [
                Self.openssl, "req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                "-keyout", server + ".key", "-out", server + ".csr", "-subj",
                "/CN=" + (names.first?.split(separator: ":", maxSplits: 1).last.map(String.init) ?? "localhost"),
                "-addext", "subjectAltName=" + names.joined(separator: ","),
            ],
            scratch: directory
        )
        try Self.execute(
            [
                Self.openssl, "x509", "-req", "-in", server + ".csr", "-CA", ca + ".crt", "-CAkey", ca + ".key",
                "-CAcreateserial", "-days", "2", "-copy_extensions", "copyall", "-out", server + ".crt",
            ],
            scratch: directory
        )
        chmod(server + ".key", 0o600)
        if let runAs, let entry = getpwnam(runAs) {
            for file in [server + ".key", server + ".crt"] { chown(file, entry.pointee.pw_uid, entry.pointee.pw_gid) }
        }
    }

    /// A self-signed CA certificate (`PATH.crt`) and its key (`PATH.key`): the server's own CA, or
    /// another one a test trusts instead, which must not be accepted.
    public static func makeCA(at path: String) throws {
        try execute(
            [
                openssl, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                "-keyout", path + ".key", "-out", path + ".crt", "-days", "2", "-subj", "/CN=Ward test CA",
                "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
            ],
            scratch: (path as NSString).deletingLastPathComponent
        )
    }

    /// Runs a server program (as `runAs` when set) and returns its standard output; throws with
    /// its standard error when it fails.
    ///
    /// `posix_spawn` and `waitpid`, not Foundation's `Process`, whose `waitUntilExit` was seen to
    /// hang when several tests start servers at once. Output goes through files in the server's
    /// directory, so no pipe can fill.
    @discardableResult
    private func run(_ program: String, _ arguments: [String]) throws -> String {
        // `env -C`: the programs start in the server's directory, which the server user can
        // read, whatever the test's working directory is.
        let command = ["/usr/bin/env", "-C", directory, "\(Self.binaries)/\(program)"]
        let argv = runAs.map { ["/usr/sbin/runuser", "-u", $0, "--"] + command } ?? command
        return try Self.execute(argv + arguments, scratch: directory)
    }

    /// Runs `arguments` (a program's path first) and returns its standard output, which goes
    /// through files in `scratch`; throws with its standard error when it fails.
    @discardableResult
    static func execute(_ arguments: [String], scratch: String) throws -> String {
        let program = ((arguments.first { $0.hasPrefix(binaries) } ?? arguments[0]) as NSString).lastPathComponent
        let all = arguments.map { strdup($0) } + [nil]
        defer { for arg in all { free(arg) } }
        let out = scratch + "/.\(program).\(UUID().uuidString).out"
        let err = out + ".err"
        defer {
            unlink(out)
            unlink(err)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, err, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        // The server starts with nothing blocked and every signal at its default, whatever the
        // test thread blocks: else pg_ctl's stop would not stop it.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        var every = sigset_t()
        sigfillset(&every)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &every)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, all[0]!, &actions, &attributes, all, environ)
        guard rc == 0 else { throw Failure.didNotStart("posix_spawn \(program): \(String(cString: strerror(rc)))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let output = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
        guard status == 0 else {
            let errors = (try? String(contentsOfFile: err, encoding: .utf8)) ?? ""
            throw Failure.didNotStart("\(program) exited with status \(status): \(errors)")
        }
        return output
    }

    /// A loopback port nothing listens on now: the kernel's pick for a socket bound to port 0.
    /// Where a test needs a server that is not there.
    public static func freePort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length)
                return getsockname(fd, pointer, &length)
            }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
