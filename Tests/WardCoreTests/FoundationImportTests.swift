import Foundation
import Testing

/// Ward's binary must stay small (under 40 MB, static and stripped): a single `import Foundation`
/// in a source that goes into it links the full Foundation and ICU's 34 MB of data, where
/// `FoundationEssentials` (and Glibc for C calls) needs none of it. Tests may import Foundation.
@Suite struct FoundationImportTests {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func noSourceOfTheBinary_importsTheFullFoundation() throws {
        var offenders: [String] = []
        for folder in ["Sources", "Plugins"] {
            let root = Self.repository.appendingPathComponent(folder)
            for relative in try FileManager.default.subpathsOfDirectory(atPath: root.path).sorted()
            where relative.hasSuffix(".swift") {
                let text = try String(contentsOf: root.appendingPathComponent(relative), encoding: .utf8)
                if text.split(separator: "\n").contains(where: Self.importsFoundation) {
                    offenders.append(folder + "/" + relative)
                }
            }
        }
        for file in offenders {
            Issue.record(
                """
                \(file) imports the full Foundation: import FoundationEssentials (and Glibc for C calls) \
                instead, and write what only Foundation has in plain Swift (WardSupport has ScalarClass, \
                PrintfNumber, PathJoin). The full Foundation links ICU's 34 MB of data into the binary.
                """
            )
        }
    }

    /// `import Foundation` as a whole line, after any attributes (`@preconcurrency`).
    static func importsFoundation(_ line: Substring) -> Bool {
        let words = line.split(separator: " ").drop { $0.hasPrefix("@") }
        return words.elementsEqual(["import", "Foundation"])
    }
}
