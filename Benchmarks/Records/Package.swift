// swift-tools-version:6.1
// Benchmarks for issue 4 item 7: `find` by name prefix and `open` of a chart with 100+
// observations over 1,000,000 demo patients. Its own package so `swift test` never builds it.
// Run: swift run -c release --scratch-path .build records-benchmark [--home DIR] [--patients N]
import PackageDescription

let package = Package(
    name: "RecordsBenchmark",
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
