import Foundation
import WardRecords

/// The value after `name` on the command line, or nil.
func option(_ name: String) -> String? {
    let arguments = CommandLine.arguments
    guard let at = arguments.firstIndex(of: name), at + 1 < arguments.count else { return nil }
    return arguments[at + 1]
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write("records-benchmark: \(message)\n".data(using: .utf8)!)
    exit(64)
}

/// The two record stores the shell can stand on.
enum Backend: String, CaseIterable {
    case sqlite
    case postgresql

    /// Issue 4's goals for the embedded store, issue 17's for the shared one (loopback).
    var goals: (median: Double, p99: Double, memoryMB: Double) {
        switch self {
        case .sqlite: (2, 5, 50)
        case .postgresql: (3, 8, 60)
        }
    }
}

/// `--postgres-url postgresql://USER@HOST:PORT/DB`, the site file's form: HOST is a name or
/// address for TCP (TLS off: the benchmark runs on loopback), or the socket's directory
/// percent-encoded (`%2Ftmp%2Fpg`). `--postgres-password-file` gives a TCP login's password.
func postgresSettings() -> PostgresSettings {
    guard let url = option("--postgres-url") else { fail("--backend postgresql needs --postgres-url") }
    var rest = Substring(url)
    for scheme in ["postgresql://", "postgres://"] where rest.hasPrefix(scheme) { rest = rest.dropFirst(scheme.count) }
    guard let at = rest.lastIndex(of: "@"), let slash = rest[at...].firstIndex(of: "/") else {
        fail("--postgres-url: expected postgresql://USER@HOST:PORT/DB")
    }
    let user = String(rest[..<at])
    let database = String(rest[rest.index(after: slash)...])
    var host = String(rest[rest.index(after: at)..<slash])
    var port = 5432
    if let colon = host.lastIndex(of: ":"), let number = Int(host[host.index(after: colon)...]) {
        port = number
        host = String(host[..<colon])
    }
    host = host.removingPercentEncoding ?? host
    var password: String?
    if let file = option("--postgres-password-file") {
        guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { fail("cannot read \(file)") }
        password = text.split(separator: "\n").first.map(String.init)
    }
    return PostgresSettings(
        endpoint: host.hasPrefix("/") ? .socket(directory: host, port: port) : .tcp(host: host, port: port),
        user: user,
        database: database,
        password: password,
        tls: .disable,
        statementTimeout: .seconds(30)
    )
}

/// The store the shell would open for `backend`.
func openStore(_ backend: Backend, home: String) throws -> any RecordStore {
    switch backend {
    case .sqlite: try SQLiteRecordStore(home: home)
    case .postgresql: try PostgresRecordStore(settings: postgresSettings())
    }
}
