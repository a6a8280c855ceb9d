// swift-tools-version:6.1
// Ward: a guarded readline shell over patient records. See README.md and man/ward.1.
import PackageDescription

let package = Package(
    name: "ward",
    products: [
        .executable(name: "ward", targets: ["ward"]),
        // What an outside plugin is written against: the API, and the support a plugin may use.
        .library(name: "WardPluginAPI", targets: ["WardPluginAPI"]),
        .library(name: "WardSupport", targets: ["WardSupport"]),
        // So that an outside plugin is tested as the built-in ones are: a real session driver
        // with a fake front end (`FakeFrontEnd`), on a `ManualClock`, run by `GuardHarness`.
        .library(name: "SessionTestSupport", targets: ["SessionTestSupport"]),
        // The benchmark packages under Benchmarks/ depend on this package by path and need these.
        .library(name: "WardCore", targets: ["WardCore"]),
        // For Benchmarks/AuditLog, which depends on this package by path.
        .library(name: "AuditLog", targets: ["AuditLog"]),
        // For Benchmarks/Records, which depends on this package by path.
        .library(name: "WardRecords", targets: ["WardRecords"]),
        // For Benchmarks/Guards, which depends on this package by path.
        .library(name: "IdleTimer", targets: ["IdleTimer"]),
        // For Fuzzing/, the libFuzzer targets, which depend on this package by path.
        .library(name: "WardShell", targets: ["WardShell"]),
        // For Fuzzing/'s site-file targets: the same list of built-in plugins as the executable.
        .library(name: "BuiltInPlugins", targets: ["BuiltInPlugins"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
        // The PostgreSQL wire protocol, for sites whose records are shared by several hosts.
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    ],
    targets: [
        // C surfaces.
        .systemLibrary(
            name: "CReadline",
            pkgConfig: "readline",
            providers: [.apt(["libreadline-dev"])]
        ),
        .target(name: "CScrub"),
        // zlib's inflate, for bulk-data exports written as *.ndjson.gz.
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // SQLite, for the records file of a home (`SQLiteConnection`: Ward's own thin layer).
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // Linux-PAM, for sites whose passwords are the system's (`[auth] source = "pam"`): its
        // headers (libpam0g-dev), and libpam loaded at the first check, not at every start.
        .target(name: "CPAM"),
        // ppoll, timerfd, eventfd, getrandom, pipe2, prctl, the window size: what Glibc's module
        // leaves out or Swift cannot call. Readline's surface stays in CReadline.
        .target(name: "CWardSystem"),

        // What a plugin needs and nothing more: events, the plugin protocol and its context,
        // the clock's instants, settings, errors. No C, no TOML, no crypto (docs/ARCHITECTURE.md §1).
        .target(
            name: "WardPluginAPI",
            dependencies: [.product(name: "Logging", package: "swift-log")]
        ),

        // What Ward's targets share beyond the API: file safety and the home, the sanitizer,
        // civil dates, the boot clock, the termination notice. Built on the API (its errors and
        // exit statuses), never the other way round: the API stays the API alone.
        .target(name: "WardSupport", dependencies: ["WardPluginAPI"]),

        // The engine: events, chain, loop, terminal, session. Knows nothing about patients.
        .target(
            name: "WardCore",
            dependencies: [
                "CPAM",
                "CReadline",
                "CWardSystem",
                "WardPluginAPI",
                "WardSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "TOMLKit", package: "TOMLKit"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),

        // The records shell: one file per command, each parsed by its own small CommandSyntax.
        .target(name: "WardShell", dependencies: ["WardCore", "WardRecords", "CWardSystem"]),

        // The executable: argument parsing and wiring.
        .executableTarget(
            name: "ward",
            dependencies: [
                "CScrub",
                "CWardSystem",
                "WardCore",
                "WardShell",
                "WardRecords",
                "BuiltInPlugins",
                "AuditLog",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            // No exported symbol table: nothing looks Ward's symbols up at run time (a crash's
            // backtrace reads `.symtab`), yet the loader searched the 40,000 exported ones for
            // every symbol the C libraries bind, 3 MB resident for the whole session.
            linkerSettings: [.unsafeFlags(["-Xlinker", "--no-export-dynamic"])]
        ),

        // The list of built-in plugin types: the only place that knows every plugin. Beside the
        // executable in a target of its own so that Fuzzing/ reads the same list.
        .target(
            name: "BuiltInPlugins",
            dependencies: ["WardCore", "AuditLog", "ExternalPlugin", "IdleTimer", "SuspendGuard", "FocusGuard"]
        ),

        // The records: SQLite store (the system's libsqlite3) or PostgreSQL (postgres-nio), schemas, demo, FHIR R4 import, LoadedChart.
        .target(
            name: "WardRecords",
            dependencies: [
                "WardCore",
                "CSQLite",
                "CZlib",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // The tamper-evident audit trail: one hash-chained JSON line per event that matters.
        .target(
            name: "AuditLog",
            dependencies: [
                "WardPluginAPI",
                "WardSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Plugins/AuditLog"
        ),

        // Runs a site's own program as an interceptor, speaking JSON Lines (man/ward-site.toml.5).
        .target(
            name: "ExternalPlugin",
            dependencies: ["WardPluginAPI", "WardSupport", .product(name: "Logging", package: "swift-log")],
            path: "Plugins/ExternalPlugin"
        ),

        // Each built-in plugin depends on WardPluginAPI (and WardSupport when it opens files or
        // processes); the executable lists them (BuiltInPlugins.swift).
        // The guards: lock on idleness, on Ctrl-Z beyond a grace, on the window out of focus.
        .target(name: "IdleTimer", dependencies: ["WardPluginAPI"], path: "Plugins/IdleTimer"),
        .target(name: "SuspendGuard", dependencies: ["WardPluginAPI"], path: "Plugins/SuspendGuard"),
        .target(name: "FocusGuard", dependencies: ["WardPluginAPI"], path: "Plugins/FocusGuard"),

        // -- more targets above this line --

        // The FHIR bundle builders the records and shell tests share.
        .target(name: "FHIRTestSupport", path: "Tests/FHIRTestSupport"),
        // The fake front end, signals, shell and manual clock the driver's and the plugins' tests
        // run sessions with, and `GuardHarness`: a product, for outside plugins' tests too.
        .target(name: "SessionTestSupport", dependencies: ["WardCore"], path: "Tests/SessionTestSupport"),
        // A real rsyslogd in a temporary directory, for the audit log's syslog forwarding.
        .target(name: "RsyslogTestSupport", path: "Tests/RsyslogTestSupport"),
        // A real PostgreSQL 15 from a fresh initdb in a temporary directory, for the records store.
        .target(name: "PostgresTestSupport", path: "Tests/PostgresTestSupport"),

        .testTarget(name: "WardCoreTests", dependencies: ["WardCore", "SessionTestSupport"]),
        .testTarget(
            name: "WardShellTests",
            // The audit log and a session's test signals: the output barrier is tested with both.
            dependencies: ["WardShell", "WardCore", "WardRecords", "FHIRTestSupport", "AuditLog", "SessionTestSupport"]
        ),
        .testTarget(
            name: "WardRecordsTests",
            dependencies: ["WardRecords", "WardCore", "FHIRTestSupport", "PostgresTestSupport"]
        ),
        .testTarget(
            name: "AuditLogTests",
            dependencies: ["AuditLog", "WardCore", "RsyslogTestSupport", "SessionTestSupport"]
        ),
        .testTarget(name: "ExternalPluginTests", dependencies: ["ExternalPlugin", "WardCore", "SessionTestSupport"]),
        .testTarget(
            name: "GuardPluginTests",
            dependencies: ["IdleTimer", "SuspendGuard", "FocusGuard", "WardCore", "SessionTestSupport"]
        ),
        // -- more test targets above this line --
        // Drives the real binary in a pseudo-terminal; depends on `ward` so it is built first.
        .testTarget(
            name: "EndToEndTests",
            dependencies: ["ward", "RsyslogTestSupport", "FHIRTestSupport", "PostgresTestSupport"]
        ),
    ]
)

// Each member a source calls is from a module it imports itself, not one a dependency happens to
// import: postgres-nio and swift-crypto import the full Foundation, and without this its
// `range(of:)` or `padding(toLength:withPad:startingAt:)` would be found and linked, ICU with it
// (scripts/build-release links Ward without Foundation and fails on any such call).
for target in package.targets
where [.regular, .executable].contains(target.type) && !(target.path ?? "").hasPrefix("Tests") {
    target.swiftSettings = (target.swiftSettings ?? []) + [.enableUpcomingFeature("MemberImportVisibility")]
}
