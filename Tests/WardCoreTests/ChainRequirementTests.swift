import Testing
import WardCore

private func policy(_ text: String) throws -> SitePolicy {
    try SitePolicy.parse(text, file: "site.toml", plugins: standInPlugins)
}

private func refusal(_ text: String) throws -> [String] {
    let site = try policy(text)
    return configError { try site.requireGuards() }?.all.map(\.description) ?? []
}

/// `[chain] require`: a site whose chain leaves out the audit log or the idle timer is refused
/// unless it says so.
@Suite struct ChainRequirementTests {
    @Test func noSiteFile_andNoPluginTables_runTheDefaultChain_whichHoldsBoth() throws {
        try SitePolicy.builtIn(plugins: standInPlugins).requireGuards()
        #expect(try refusal("[session]\nidle-timeout = \"5m\"\n").isEmpty)
    }

    @Test func aChainOfOneExternalPlugin_isRefusedForEachMissingGuard_atItsFirstTable() throws {
        let text = "[session]\nidle-timeout = \"5m\"\n\n[[plugin]]\nname = \"external\"\ncommand = [\"x\"]\n"
        #expect(
            try refusal(text) == [
                """
                site.toml:4: the plugin chain has no 'audit-log', so nothing a session does would be audited. \
                Add a [[plugin]] with name = "audit-log", or, to run without it on purpose, write [chain] require = ["idle-timer"].
                """,
                """
                site.toml:4: the plugin chain has no 'idle-timer', so a session left alone would never lock. \
                Add a [[plugin]] with name = "idle-timer", or, to run without it on purpose, write [chain] require = ["audit-log"].
                """,
            ]
        )
    }

    @Test func anEmptyChain_isRefusedAtItsLine_unlessTheSiteRequiresNothing() throws {
        let messages = try refusal("# no plugins\nplugin = []\n\n[session]\nidle-timeout = \"5m\"\n")
        #expect(messages.count == 2 && messages.allSatisfy { $0.hasPrefix("site.toml:2: ") })
        #expect(try refusal("plugin = []\n\n[chain]\nrequire = []\n").isEmpty)
    }

    @Test func aSiteThatRequiresOnlyTheAuditLog_mayLeaveOutTheIdleTimer_butNotTheLog() throws {
        let text = "[[plugin]]\nname = \"audit-log\"\n\n[chain]\nrequire = [\"audit-log\"]\n"
        #expect(try refusal(text).isEmpty)
        let without = try refusal("[[plugin]]\nname = \"idle-timer\"\n\n[chain]\nrequire = [\"audit-log\"]\n")
        #expect(without.count == 1 && without[0].contains("no 'audit-log'"))
    }

    @Test func aSiteMayRequireMore_thanTheDefault() throws {
        let text = """
            [[plugin]]
            name = "idle-timer"

            [[plugin]]
            name = "audit-log"

            [chain]
            require = ["audit-log", "idle-timer", "suspend-guard"]
            """
        let messages = try refusal(text)
        #expect(messages.count == 1 && messages[0].contains("no 'suspend-guard', so the site requires it"))
    }

    @Test func anUnknownPluginOrKey_inTheChainTable_isAnErrorNamingItsLine() {
        let messages =
            configError { try policy("[chain]\nrequire = [\"idle-timmer\"]\nrequried = 1\n") }?.all.map(\.description)
            ?? []
        #expect(messages.count == 2)
        #expect(messages.first?.hasPrefix("site.toml:2: ") == true)
        #expect(messages.first?.contains("idle-timmer") == true)
        #expect(messages.last?.hasPrefix("site.toml:3: unknown key 'requried'") == true)
    }
}
