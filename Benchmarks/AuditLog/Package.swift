// swift-tools-version:6.1
// Records per second appended to the audit log under each fsync policy.
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
