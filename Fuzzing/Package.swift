// swift-tools-version:6.1
// libFuzzer targets for the parsers that read text Ward did not write (issue 12 §6).
// Its own package so that `swift test` at the top never builds it; `Fuzz/run` builds it with
// `--sanitize=fuzzer --sanitize=address` and runs every target. Each target is one file without
// `main.swift`, so SwiftPM compiles it as a library-style module and libFuzzer's `main` links in.
import PackageDescription

let package = Package(
    name: "WardFuzz",
    dependencies: [
        .package(name: "ward", path: "..")
    ],
    targets: [
        .executableTarget(
            name: "FuzzFHIRBundle",
            dependencies: [.product(name: "WardRecords", package: "ward")]
        ),
        .executableTarget(
            name: "FuzzSiteFile",
            dependencies: [.product(name: "WardCore", package: "ward")]
        ),
        .executableTarget(
            name: "FuzzUserPreferences",
            dependencies: [.product(name: "WardCore", package: "ward")]
        ),
        .executableTarget(
            name: "FuzzKeyDecoder",
            dependencies: [.product(name: "WardCore", package: "ward")]
        ),
        .executableTarget(
            name: "FuzzBatchInput",
            dependencies: [.product(name: "WardCore", package: "ward")]
        ),
        .executableTarget(
            name: "FuzzShellWords",
            dependencies: [.product(name: "WardShell", package: "ward")]
        ),
        .executableTarget(
            name: "FuzzAuditVerifier",
            dependencies: [.product(name: "AuditLog", package: "ward")]
        ),
    ]
)
