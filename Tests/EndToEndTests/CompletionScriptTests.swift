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

    /// What bash offers for the words before the cursor (the last one is being completed), as
    /// bash-completion would call the script's `_ward`: in `directory`, for file names.
    static func bashOffers(_ words: [String], in directory: URL? = nil) throws -> [String] {
        let script = repository.appendingPathComponent("completions/ward.bash").path
        let quoted = words.map(TerminalHarness.shellQuote).joined(separator: " ")
        let line = words.joined(separator: " ")
        let program = """
            cd \(TerminalHarness.shellQuote(directory?.path ?? "/"))
            source \(TerminalHarness.shellQuote(script))
            COMP_WORDS=(\(quoted))
            COMP_CWORD=\(words.count - 1)
            COMP_LINE=\(TerminalHarness.shellQuote(line))
            COMP_POINT=${#COMP_LINE}
            COMPREPLY=()
            _ward ward "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        let out = try TerminalHarness.run("/bin/bash", ["--norc", "--noprofile", "-c", program], environment: [:])
        return out.split(separator: "\n").map(String.init)
    }

    @Test func bash_offersTheShellsOptions_afterWard() throws {
        let offered = try Self.bashOffers(["ward", "--"])
        for option in [
            "--user", "--batch", "--password-fd", "--password-file", "--format", "--on-error", "--home", "--site",
        ] {
            #expect(offered.contains(option), "\(option) not in \(offered)")
        }
        #expect(try Self.bashOffers(["ward", "-"]).contains("-c"))
    }

    @Test func bash_offersTheValuesAnOptionTakes() throws {
        #expect(try Self.bashOffers(["ward", "--format", ""]) == ["text", "json", "csv"])
        #expect(try Self.bashOffers(["ward", "user", "add", "x", "--role", ""]) == ["clinician", "clerk", "auditor"])
        let kinds = try Self.bashOffers(["ward", "audit", "show", "--kind", ""])
        #expect(kinds.contains("sign-on") && kinds.contains("user-add"), "\(kinds)")
        #expect(try Self.bashOffers(["ward", "audit", "show", "--kind", "user-a"]) == ["user-add"])
        let help = try Self.bashOffers(["ward", "help", ""])
        #expect(help.contains("sessions") && help.contains("audit") && help.contains("config"), "\(help)")
        #expect(try Self.bashOffers(["ward", "help", "sess"]) == ["sessions"])
    }

    @Test func bash_offersFileNames_whereAFileGoes() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ward-completion-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try "{}".write(to: directory.appendingPathComponent("bundle.json"), atomically: true, encoding: .utf8)
        for words in [
            ["ward", "import", "bun"], ["ward", "--site", "bun"], ["ward", "--batch", "bun"],
            ["ward", "config", "check", "bun"], ["ward", "shell", "--password-file", "bun"],
        ] {
            #expect(try Self.bashOffers(words, in: directory) == ["bundle.json"], "\(words)")
        }
    }

    /// The zsh and fish scripts are at least scripts their shells accept.
    @Test(arguments: [("zsh", "_ward"), ("fish", "ward.fish")])
    func scriptParses(shell: String, file: String) throws {
        let path = "/usr/bin/\(shell)"
        guard FileManager.default.isExecutableFile(atPath: path) else {
            Issue.record("\(path) is missing: scripts/install-deps installs it")
            return
        }
        _ = try TerminalHarness.run(path, ["-n", Self.repository.appendingPathComponent("completions/\(file)").path])
        #expect(TerminalHarness.lastStatus == 0, "\(shell) -n completions/\(file)")
    }
}
