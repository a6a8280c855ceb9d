import Foundation
import Testing

/// The committed completion scripts are what the binary generates; regenerate them with
/// `scripts/generate-completions` after changing an option or a subcommand.
@Suite struct CompletionScriptTests {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test(arguments: [("bash", "ward.bash"), ("zsh", "_ward"), ("fish", "ward.fish")])
    func committedScriptIsUpToDate(shell: String, file: String) throws {
        let generated = try TerminalHarness.run(TerminalHarness.wardPath, ["--generate-completion-script", shell])
        let committed = try String(
            contentsOf: Self.repository.appendingPathComponent("completions/\(file)"),
            encoding: .utf8
        )
        #expect(
            generated == committed,
            "completions/\(file) is out of date: run scripts/generate-completions"
        )
    }
}
