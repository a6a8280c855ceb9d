// swift-tools-version:6.1
// Records per second appended to the audit log under each fsync policy, and with each record
// also forwarded to a real rsyslogd the benchmark starts (Debian package rsyslog).
// Run it with --rounds N for the median of N forwarding runs (default 5).
// Its own package so that `swift test` at the top never builds or runs it:
//   cd Benchmarks/AuditLog && swift run -c release AuditLogBenchmark [--records N] [--dir DIR]
import PackageDescription

let package = Package(
    name: "AuditLogBenchmark",
    dependencies: [
        .package(name: "ward", path: "../..")
    ],
    targets: [
        .executableTarget(
            name: "AuditLogBenchmark",
            dependencies: [
                .product(name: "AuditLog", package: "ward"),
                .product(name: "WardCore", package: "ward"),
            ]
        )
    ]
)
