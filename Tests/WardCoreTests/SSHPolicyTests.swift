import Testing
import WardCore

/// `[ssh] allow-commands`, and the words of a command given over SSH.
@Suite struct SSHPolicyTests {
    private func policy(_ text: String) throws -> SitePolicy {
        try SitePolicy.parse(text, file: "site.toml", plugins: standInPlugins)
    }

    @Test func withoutTheTable_noCommandIsAllowed() throws {
        #expect(!(try policy("")).ssh.allows(.batch))
        #expect(!SitePolicy.builtIn(plugins: standInPlugins).ssh.allows(.batch))
        #expect(!(try policy("[ssh]\nallow-commands = []\n")).ssh.allows(.batch))
    }

    @Test func batch_isAllowedWhenListed() throws {
        #expect(try policy("[ssh]\nallow-commands = [\"batch\"]\n").ssh.allows(.batch))
    }

    @Test func anUnknownKindOrKey_isAnErrorNamingItsLine() {
        let messages =
            configError { try policy("[ssh]\nallow-commands = [\"shell\"]\nallow = 1\n") }?.all.map(\.description) ?? []
        #expect(
            messages == [
                "site.toml:2: 'allow-commands' is \"shell\"; allowed: \"batch\".",
                "site.toml:3: unknown key 'allow' in [ssh].",
            ]
        )
    }

    @Test func words_areSplitOnSpaces_andSingleQuotesKeepOneWord() throws {
        #expect(
            try SSHCommandWords.split("ward  -c 'find lovelace' --user night") == [
                "ward", "-c", "find lovelace", "--user", "night",
            ]
        )
        #expect(
            try SSHCommandWords.split("ward --password-fd=0 --format json") == [
                "ward", "--password-fd=0", "--format", "json",
            ]
        )
    }

    @Test(arguments: [
        "cat /etc/passwd; id", "ward $(id)", "ward `id`", "ward | sh", "ward > /tmp/x", "ward \"x\"",
        "ward \\x", "ward *", "ward ~root", "ward 'open", "ward\nid", "ward\tid", "ward \u{1B}[2J", "", "   ",
        "ward é",
    ])
    func anythingAShellWouldInterpret_isRefused(_ text: String) {
        #expect(throws: SSHCommandWords.Unreadable.self) { try SSHCommandWords.split(text) }
    }

    @Test func aCommandLongerThanTheLimit_isRefused() {
        let long = "ward -c '" + String(repeating: "a", count: SSHCommandWords.longest) + "'"
        #expect(throws: SSHCommandWords.Unreadable.self) { try SSHCommandWords.split(long) }
    }
}
