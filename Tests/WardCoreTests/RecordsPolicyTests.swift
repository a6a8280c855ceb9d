import Glibc
import Testing
import WardCore

/// `[records]`: which store holds the records, and how to reach a PostgreSQL server.
@Suite struct RecordsPolicyTests {
    private func policy(_ text: String) throws -> SitePolicy {
        try SitePolicy.parse(text, file: "site.toml", plugins: standInPlugins)
    }

    private func messages(_ text: String) -> [String] {
        configError { try policy(text) }?.all.map(\.description) ?? []
    }

    @Test func withoutTheTable_theHomesSQLiteFile() throws {
        #expect(try policy("").records.backend == .sqlite)
        #expect(SitePolicy.builtIn(plugins: standInPlugins).records.backend == .sqlite)
        #expect(try policy("[records]\nbackend = \"sqlite\"\n").records.backend == .sqlite)
    }

    @Test func postgresql_withEveryKey() throws {
        let records = try policy(
            """
            [records]
            backend = "postgresql"
            url = "postgresql://ward@db.example.org:6543/records"
            password-file = "/etc/ward/records.password"
            tls = "require"
            target-session-attrs = "any"
            connect-timeout = "2s"
            statement-timeout = "750ms"
            """
        ).records
        #expect(records.backend == .postgresql)
        #expect(
            records.url
                == RecordsPolicy.ServerURL(user: "ward", host: "db.example.org", port: 6543, database: "records")
        )
        #expect(records.passwordFile == "/etc/ward/records.password")
        #expect(records.tls == .require)
        #expect(records.targetSessionAttrs == .any)
        #expect(records.connectTimeout == .seconds(2))
        #expect(records.statementTimeout == .milliseconds(750))
        #expect(records.summary.contains("url = \"postgresql://ward@db.example.org:6543/records\""))
    }

    @Test func defaults_requireTLS_fiveSeconds_port5432() throws {
        let records = try policy("[records]\nbackend = \"postgresql\"\nurl = \"postgres://ward@db/records\"\n").records
        #expect(records.url?.servers.map(\.port) == [5432])
        #expect(records.tls == .require)
        #expect(records.targetSessionAttrs == .readWrite)
        #expect(records.connectTimeout == .seconds(5) && records.statementTimeout == .seconds(5))
        #expect(records.passwordFile == nil)
    }

    @Test func urlForms_socketDirectoryAndIPv6() {
        guard case .success(let socket) = RecordsPolicy.parseURL("postgresql://ward@%2Frun%2Fpostgresql:5433/records")
        else {
            Issue.record("the socket form did not parse")
            return
        }
        #expect(socket.isSocket && socket.servers == [.init(host: "/run/postgresql", port: 5433)])
        guard case .success(let v6) = RecordsPolicy.parseURL("postgresql://ward@[::1]:5432/records") else {
            Issue.record("the IPv6 form did not parse")
            return
        }
        #expect(v6.servers == [.init(host: "::1", port: 5432)] && !v6.isSocket)
    }

    @Test func urlHostList_isTriedInOrder_asLibpqWritesIt() throws {
        let url = try RecordsPolicy.parseURL(
            "postgresql://ward@h1:5432,[::1]:5433,%2Frun%2Fpostgresql,h4/records?target_session_attrs=any"
        ).get()
        #expect(
            url.servers == [
                .init(host: "h1", port: 5432), .init(host: "::1", port: 5433),
                .init(host: "/run/postgresql", port: 5432), .init(host: "h4", port: 5432),
            ]
        )
        #expect(url.targetSessionAttrs == .any && !url.isSocket)
        #expect(
            RecordsPolicy.parseURL("postgresql://ward@h1,h2/r?target_session_attrs=read-write")
                == .success(
                    .init(
                        user: "ward",
                        servers: [.init(host: "h1", port: 5432), .init(host: "h2", port: 5432)],
                        database: "r",
                        targetSessionAttrs: .readWrite
                    )
                )
        )
        #expect(RecordsPolicy.parseURL("postgresql://ward@h1,/r") == .failure(.host))
        #expect(RecordsPolicy.parseURL("postgresql://ward@h1:x,h2/r") == .failure(.port))
        #expect(
            RecordsPolicy.parseURL("postgresql://ward@h1/r?target_session_attrs=primary")
                == .failure(.targetSessionAttrs)
        )
        #expect(
            RecordsPolicy.parseURL("postgresql://ward@h1/r?target_session_attrs=any&sslmode=disable")
                == .failure(.parameters)
        )

        let records = try policy(
            "[records]\nbackend = \"postgresql\"\nurl = \"postgresql://ward@h1:5432,h2:6432/records\"\n"
        ).records
        #expect(records.targetSessionAttrs == .readWrite)
        #expect(records.summary.contains("url = \"postgresql://ward@h1:5432,h2:6432/records\"\n"))
        #expect(records.summary.contains("target-session-attrs = \"read-write\"\n"))
        // The URL's parameter is the key's other spelling; the two must agree.
        let fromURL = try policy(
            "[records]\nbackend = \"postgresql\"\nurl = \"postgresql://ward@h1,h2/r?target_session_attrs=any\"\n"
        ).records
        #expect(fromURL.targetSessionAttrs == .any)
        #expect(
            messages(
                "[records]\nbackend = \"postgresql\"\nurl = \"postgresql://ward@h1,h2/r?target_session_attrs=any\"\n"
                    + "target-session-attrs = \"read-write\"\n"
            ) == [
                "site.toml:4: 'target-session-attrs' is \"read-write\" but the url's target_session_attrs is any; "
                    + "keep one of them."
            ]
        )
        #expect(
            messages(
                "[records]\nbackend = \"postgresql\"\nurl = \"postgresql://ward@h1/r\"\ntarget-session-attrs = \"standby\"\n"
            )
            .first?.hasPrefix("site.toml:4:") == true
        )
    }

    @Test func tlsDisable_isRefusedTowardAnotherHost_namingIt() throws {
        let remote = messages(
            "[records]\nbackend = \"postgresql\"\nurl = \"postgresql://ward@127.0.0.1,db.example.org:6543/r\"\n"
                + "tls = \"disable\"\n"
        )
        #expect(
            remote == [
                "site.toml:4: tls = \"disable\" would send the password and the records in the clear to "
                    + "db.example.org:6543, which is not this host; remove 'tls' (TLS is required, with 'ca-file' "
                    + "for the site's own CA), or use a Unix socket or a loopback address in 'url'."
            ]
        )
        let error = try #require(throws: ConfigError.self) {
            try policy(
                "[records]\nbackend = \"postgresql\"\nurl = \"postgresql://ward@[fe80::1]/r\"\ntls = \"disable\"\n"
            )
        }
        #expect(error.exitStatus.rawValue == 78)
        #expect("\(error)".contains("[fe80::1]:5432"))
        for host in ["127.0.0.1", "127.3.4.5", "localhost", "LOCALHOST", "[::1]", "[::ffff:127.0.0.1]", "%2Frun%2Fpg"] {
            let text = "[records]\nbackend = \"postgresql\"\nurl = \"postgresql://ward@\(host)/r\"\ntls = \"disable\"\n"
            #expect(try policy(text).records.tls == .disable, "\(host)")
        }
        for host in ["128.0.0.1", "10.0.0.1", "localhost.example.org", "::2"] {
            #expect(!RecordsPolicy.ServerURL.Server(host: host, port: 5432).isLocal, "\(host)")
        }
    }

    @Test func badURLs_areRefused_withoutRepeatingTheURL() {
        let cases: [(String, RecordsPolicy.URLProblem)] = [
            ("mysql://ward@db/records", .scheme),
            ("postgresql://db/records", .noUser),
            ("postgresql://ward:secret@db/records", .passwordInURL),
            ("postgresql://ward@db/records?sslmode=disable", .parameters),
            ("postgresql://ward@db/records#x", .parameters),
            ("postgresql://ward@db", .noDatabase),
            ("postgresql://ward@db:99999/records", .port),
            ("postgresql://ward@db:x/records", .port),
            ("postgresql://ward@/records", .host),
        ]
        for (url, problem) in cases {
            #expect(RecordsPolicy.parseURL(url) == .failure(problem), "\(url)")
        }
        let errors = messages("[records]\nbackend = \"postgresql\"\nurl = \"postgresql://ward:hunter2@db/records\"\n")
        #expect(errors.count == 1)
        #expect(errors.first?.hasPrefix("site.toml:3: ") == true)
        #expect(errors.first?.contains("hunter2") == false)
        #expect(errors.first?.contains("password-file") == true)
    }

    @Test func errors_nameTheLine() {
        #expect(
            messages("[records]\nbackend = \"postgresql\"\n") == ["site.toml:1: [records] has no 'url'; add one."]
        )
        let wrong = messages(
            """
            [records]
            backend = "oracle"
            tls = "prefer"
            connect-timeout = "1h"
            password-file = "records.password"
            urll = "x"
            """
        )
        #expect(wrong.count == 5)
        #expect(
            wrong.map { $0.prefix(12) } == [
                "site.toml:2:", "site.toml:3:", "site.toml:4:", "site.toml:5:", "site.toml:6:",
            ]
        )
        // Server keys with the SQLite backend are a mistake, not ignored.
        let stray = messages("[records]\nurl = \"postgresql://ward@db/records\"\n")
        #expect(stray.count == 1 && stray.first?.hasPrefix("site.toml:2:") == true)
        // TLS on a socket means nothing: said, not ignored.
        let socket = messages(
            "[records]\nbackend = \"postgresql\"\nurl = \"postgresql://ward@%2Frun%2Fpostgresql/r\"\ntls = \"require\"\n"
        )
        #expect(socket.count == 1 && socket.first?.hasPrefix("site.toml:4:") == true)
    }

    @Test func caFile_isAnAbsolutePath_forTLSOverTCPOnly() throws {
        let records = try policy(
            "[records]\nbackend = \"postgresql\"\nurl = \"postgresql://ward@db/r\"\nca-file = \"/etc/ward/ca.pem\"\n"
        ).records
        #expect(records.caFile == "/etc/ward/ca.pem")
        #expect(records.summary.contains("ca-file = \"/etc/ward/ca.pem\"\n"))
        #expect(
            messages("[records]\nbackend = \"postgresql\"\nurl = \"postgresql://ward@db/r\"\nca-file = \"ca.pem\"\n")
                == ["site.toml:4: 'ca-file' is \"ca.pem\"; allowed: an absolute path."]
        )
        // Nothing to verify without TLS: said, not ignored.
        let clear = messages(
            "[records]\nbackend = \"postgresql\"\nurl = \"postgresql://ward@127.0.0.1/r\"\ntls = \"disable\"\nca-file = \"/ca.pem\"\n"
        )
        #expect(clear.count == 1 && clear.first?.hasPrefix("site.toml:5: 'ca-file' verifies") == true)
        let socket = messages(
            "[records]\nbackend = \"postgresql\"\nurl = \"postgresql://ward@%2Frun/r\"\nca-file = \"/ca.pem\"\n"
        )
        #expect(socket.count == 1 && socket.first?.hasPrefix("site.toml:4:") == true)
    }
}

/// `ca-file` chooses which servers Ward trusts: one its group or others may write is refused
/// when the site file is read, naming the line and the path, as `password-file` is.
@Suite struct RecordsCAFileModeTests {
    private func messages(caFile path: String) -> [String] {
        let site = "[records]\nbackend = \"postgresql\"\nurl = \"postgresql://ward@db/r\"\nca-file = \"\(path)\"\n"
        return configError { try SitePolicy.parse(site, file: "site.toml", plugins: standInPlugins) }?.all.map(
            \.description
        ) ?? []
    }

    @Test func writableByOthersOrGroup_refused_namingLineAndPath() {
        let scratch = ConfigScratch()
        defer { scratch.remove() }
        for mode: mode_t in [0o666, 0o646, 0o664] {
            let path = scratch.write("ca-\(String(mode, radix: 8)).pem", "-----BEGIN CERTIFICATE-----\n", mode: mode)
            let errors = messages(caFile: path)
            #expect(errors.count == 1, "mode \(String(mode, radix: 8))")
            #expect(errors.first?.hasPrefix("site.toml:4: ") == true)
            #expect(errors.first?.contains(path) == true)
            #expect(errors.first?.contains("chmod go-w") == true)
        }
    }

    @Test func ownersAlone_orMissing_accepted() {
        let scratch = ConfigScratch()
        defer { scratch.remove() }
        for mode: mode_t in [0o644, 0o600, 0o444] {
            let path = scratch.write("ca-\(String(mode, radix: 8)).pem", "-----BEGIN CERTIFICATE-----\n", mode: mode)
            #expect(messages(caFile: path).isEmpty, "mode \(String(mode, radix: 8))")
        }
        // Not there yet: the connection says so (exit 69), not the site file's check.
        #expect(messages(caFile: scratch.path + "/absent.pem").isEmpty)
        // A directory is not a file of certificates.
        #expect(messages(caFile: scratch.path).first?.contains("not a regular file") == true)
    }
}

/// `[records] time-zone`: the zone days and times are shown in.
@Suite struct RecordsTimeZoneTests {
    private func policy(_ text: String) throws -> SitePolicy {
        try SitePolicy.parse(text, file: "site.toml", plugins: standInPlugins)
    }

    @Test func aZoneOfTheDatabase_isTheSites_andNoneIsTheSystems() throws {
        let records = try policy("[records]\ntime-zone = \"America/Los_Angeles\"\n").records
        #expect(records.timeZone == "America/Los_Angeles")
        #expect(records.shownZone == .named("America/Los_Angeles"))
        #expect(records.summary.contains("time-zone = \"America/Los_Angeles\""))
        #expect(try policy("").records.shownZone == .system)
    }

    @Test func aZoneNotInTheDatabase_isAnErrorNamingFileAndLine() {
        let error = configError { try policy("[records]\nbackend = \"sqlite\"\ntime-zone = \"Mars/Olympus\"\n") }
        #expect(error?.exitStatus == .configuration)
        #expect(
            error?.description
                == "site.toml:3: 'time-zone' is \"Mars/Olympus\"; allowed: a zone of the tz database "
                + "(no file /usr/share/zoneinfo/Mars/Olympus)."
        )
    }
}
