// swift-tools-version:6.1
// libFuzzer targets for the parsers that read text Ward did not write (issue 12 §6).
// Its own package so that `swift test` at the top never builds it; `Fuzzing/run` builds it with
// the fuzzer and address sanitizers and runs every target. Each target is one file without
// `main.swift`, so SwiftPM compiles it as a library-style module and libFuzzer's `main` links in.
// (Not named `Fuzz`: SwiftPM names a package by its folder, and a checkout in a folder `fuzz`
// would then clash with it.)
import PackageDescription

/// Each target: what it fuzzes (`Fuzz<name>`, Sources/Fuzz<name>/) and the Ward libraries it calls.
let fuzzTargets: [(name: String, libraries: [String])] = [
    ("FHIRBundle", ["WardRecords"]),
    ("SiteFile", ["WardCore", "BuiltInPlugins"]),
    ("UserPreferences", ["WardCore", "BuiltInPlugins"]),
    ("KeyDecoder", ["WardCore"]),
    ("BatchInput", ["WardCore"]),
    ("ShellWords", ["WardShell"]),
    ("AuditVerifier", ["AuditLog"]),
]

let package = Package(
    name: "WardFuzz",
    dependencies: [
        .package(name: "ward", path: "..")
    ],
    targets: fuzzTargets.map { target in
        .executableTarget(
            name: "Fuzz" + target.name,
            dependencies: target.libraries.map { .product(name: $0, package: "ward") }
        )
    }
)
