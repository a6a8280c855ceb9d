// swift-tools-version:6.1
// The engine's benchmarks: the cost of one key event through the chain, and start to prompt.
// Its own package so that `swift test` in the parent never builds it.
import PackageDescription

let package = Package(
    name: "EngineBenchmark",
    dependencies: [.package(name: "ward", path: "../..")],
    targets: [
        .executableTarget(
            name: "EngineBenchmark",
            dependencies: [.product(name: "WardCore", package: "ward")],
            swiftSettings: [.unsafeFlags(["-Ounchecked"])]
        )
    ]
)
