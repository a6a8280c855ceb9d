// swift-tools-version:6.1
// Benchmarks for issue 4 item 7 and issue 17: `find` by name prefix and `open` of a chart with
// 100+ observations over 1,000,000 demo patients, on the SQLite store, on PostgreSQL, or on both
// by turns. Its own package so `swift test` never builds it.
// Run: cd Benchmarks/Records && swift run -c release records-benchmark [--home DIR] [--patients N]
//      [--backend sqlite|postgresql|both] [--postgres-url URL] [--postgres-password-file FILE]
//      [--iterations N] [--rounds N] [--limit N] [--only find|two|open]
// (a missing home is generated first: about 90 s and 1.6 GB for 1,000,000 patients; a PostgreSQL
// server is started and filled by postgres_server.py beside this file).
import PackageDescription

let package = Package(
    name: "RecordsBenchmark",
    products: [
        // The name the run line above uses.
        .executable(name: "records-benchmark", targets: ["RecordsBenchmark"])
    ],
    dependencies: [
        // By name: a path package is otherwise named after its folder, which differs between clones.
        .package(name: "ward", path: "../..")
    ],
    targets: [
        .executableTarget(
            name: "RecordsBenchmark",
            dependencies: [.product(name: "WardRecords", package: "ward")],
            path: "Sources/RecordsBenchmark"
        )
    ]
)
