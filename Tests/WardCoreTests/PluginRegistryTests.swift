import SessionTestSupport
import Testing
import WardCore

private func environment(_ policy: SitePolicy) -> PluginEnvironment {
    PluginEnvironment(home: "/tmp/ward-home", policy: policy)
}

private func build(_ text: String) throws -> [any Plugin] {
    let policy = try SitePolicy.parse(text, file: "site.toml", plugins: standInPlugins)
    return try standInPlugins.makePlugins(policy.plugins, environment: environment(policy))
}

private func messages(_ text: String) -> [String] {
    configError { try build(text) }?.all.map(\.description) ?? []
}

@Suite struct PluginRegistryTests {
    @Test func registry_namesItsPlugins_inTheOrderGiven() {
        #expect(standInPlugins.names == ["idle-timer", "audit-log", "suspend-guard", "focus-guard", "external"])
        #expect(standInPlugins.plugins.allSatisfy { !$0.summary.isEmpty })
        #expect(
            standInPlugins.plugin(named: "suspend-guard").map(ObjectIdentifier.init)
                == ObjectIdentifier(SuspendGuardStandIn.self)
        )
        #expect(standInPlugins.plugin(named: "mystery") == nil)
    }

    @Test func aPluginsName_comesFromItsType_unlessTheInstanceSaysOtherwise() throws {
        let settings = PluginSettings.defaults(for: IdleTimerStandIn.name)
        let plugin = try IdleTimerStandIn(settings: settings, environment: PluginEnvironment(home: "/tmp/ward-home"))
        #expect(plugin.name == "idle-timer")
        #expect(RecordingInterceptor("a").name == "a")
    }

    @Test func makeChain_buildsDefaultChain_inOrder_whenNoSiteFile() throws {
        let policy = SitePolicy.builtIn(plugins: standInPlugins)
        let chain = try standInPlugins.makeChain(
            policy: policy,
            environment: environment(policy),
            clock: ManualClock(),
            session: SessionInfo(id: "t")
        )
        #expect(chain.names == ["idle-timer", "audit-log", "suspend-guard"])
    }

    @Test func makePlugins_followsSiteOrder_andPassesSettings() throws {
        let built = try build(
            """
            [[plugin]]
            name = "suspend-guard"
            grace = "5s"
            [[plugin]]
            name = "idle-timer"
            """
        )
        #expect(built.map(\.name) == ["suspend-guard", "idle-timer"])
        #expect((built[0] as? StandIn)?.grace == .seconds(5))
    }

    @Test func makePlugins_reportsUnreadKey_withSuggestion() {
        #expect(
            messages("[[plugin]]\nname = \"suspend-guard\"\ngrase = \"5s\"\n")
                == ["site.toml:3: unknown key 'grase' in plugin 'suspend-guard'; did you mean 'grace'?"]
        )
    }

    @Test func makePlugins_passesTheInitializersConfigError_withItsLine() {
        #expect(
            messages("[[plugin]]\nname = \"suspend-guard\"\ngrace = \"2m\"\n")
                == ["site.toml:3: 'grace' is 2m; allowed: 0s to 1m."]
        )
    }

    @Test func makePlugins_reportsAFailedInitializer_atThePluginsLine() {
        #expect(
            messages("[[plugin]]\nname = \"idle-timer\"\n\n[[plugin]]\nname = \"focus-guard\"\n")
                == ["site.toml:4: plugin 'focus-guard' cannot start: cannot open /var/log/ward: permission denied."]
        )
    }

    @Test func makePlugins_reportsUnknownPlugin_whenSettingsNameOne() {
        let settings = PluginSettings(name: "mystery", file: "site.toml", line: 9, values: [:])
        let error = configError {
            try standInPlugins.makePlugins([settings], environment: environment(.builtIn(plugins: standInPlugins)))
        }
        #expect(
            error?.description
                == "site.toml:9: unknown plugin 'mystery'; known plugins: idle-timer, audit-log, suspend-guard, focus-guard, external."
        )
    }

    @Test func makePlugins_reportsEveryPluginsErrors_together() {
        let lines = configError {
            try build(
                """
                [[plugin]]
                name = "idle-timer"
                grace = "1h"
                [[plugin]]
                name = "audit-log"
                pth = "/x"
                [[plugin]]
                name = "focus-guard"
                """
            )
        }?.all.map(\.line)
        #expect(lines == [3, 6, 7])
    }

    @Test func environment_givesEachSignedOnUserTheirPolicy() throws {
        let policy = try SitePolicy.parse(
            "[user.alice]\nidle-timeout = \"1m\"\n",
            file: "site.toml",
            plugins: standInPlugins
        )
        let env = environment(policy)
        #expect(env.sessionPolicy.idleTimeout == .seconds(300))
        #expect(env.sessionPolicy(for: SessionInfo(id: "t", user: "alice", role: .clerk)).idleTimeout == .seconds(60))
    }
}
