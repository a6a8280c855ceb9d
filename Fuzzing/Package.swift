// swift-tools-version:6.1
// libFuzzer targets for the parsers that read text Ward did not write (issue 12 §6).
// Its own package so that `swift test` at the top never builds it; `Fuzzing/run` builds it with
// the fuzzer and address sanitizers and runs every target. Each target is one file without
// `main.swift`, so SwiftPM compiles it as a library-style module and libFuzzer's `main` links in.
// (Not named `Fuzz`: SwiftPM names a package by its folder, and a checkout in a folder `fuzz`
// would then clash with it.)
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
