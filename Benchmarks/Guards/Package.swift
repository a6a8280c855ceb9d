// swift-tools-version:6.1
// The guards' benchmarks (issue 5): how close to its deadline the idle lock comes on a real loop,
// and how an idle Ward compares with bash's TMOUT (delay after the deadline, wake-ups while idle).
// Its own package so that `swift test` at the top never builds or runs it:
//   cd Benchmarks/Guards && swift build -c release
//   .build/release/GuardsBenchmark precision [--trials 40] [--timeout-ms 1000]
//   python3 compare_tmout.py .build/release/GuardsBenchmark [--trials 10] [--idle-seconds 10]
import PackageDescription

let package = Package(
    name: "GuardsBenchmark",
    dependencies: [
        .package(name: "ward", path: "../..")
    ],
    targets: [
        .executableTarget(
            name: "GuardsBenchmark",
            // The engine's loop and chain, and the idle timer (which depends on WardPluginAPI alone).
            dependencies: [.product(name: "WardCore", package: "ward"), .product(name: "IdleTimer", package: "ward")]
        )
    ]
)
