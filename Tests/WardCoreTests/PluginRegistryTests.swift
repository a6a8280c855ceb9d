import Testing
import WardCore

/// A plugin that reads the keys it is told to and records what it saw.
private final class Probe: Interceptor {
    let name: String
    let grace: Duration?
    init(name: String, grace: Duration?) {
        self.name = name
        self.grace = grace
    }
    func intercept(_ event: Event, context: PluginContext) -> Disposition { .pass }
}

private struct Broken: Error, CustomStringConvertible {
    var description: String { "cannot open /var/log/ward: permission denied" }
}

private func registry() -> PluginRegistry {
    var registry = PluginRegistry()
    for name in ["idle-timer", "audit-log", "suspend-guard"] {
        registry.register(name) { settings, _ in
            Probe(name: settings.name, grace: try settings.duration("grace", in: .zero ... .seconds(60)))
        }
    }
    registry.register("focus-guard") { _, _ in throw Broken() }
    return registry
}

private func environment(_ policy: SitePolicy) -> PluginEnvironment {
    PluginEnvironment(home: "/tmp/ward-home", policy: policy)
}

private func build(_ text: String) throws -> [any Interceptor] {
    let policy = try SitePolicy.parse(text, file: "site.toml")
    return try registry().makeInterceptors(policy.plugins, environment: environment(policy))
}

private func messages(_ text: String) -> [String] {
    configError { try build(text) }?.all.map(\.description) ?? []
}

@Suite struct PluginRegistryTests {
    @Test func registry_listsBuiltInPlugins_withSummaries_beforeAnyFactory() {
        let registry = PluginRegistry()
        #expect(registry.names == ["idle-timer", "audit-log", "suspend-guard", "focus-guard", "external"])
        #expect(registry.plugins.allSatisfy { !$0.summary.isEmpty && $0.factory == nil })
        #expect(PluginRegistry.builtInNames == registry.names)
    }

    @Test func register_addsNewName_andKeepsBuiltInSummary() {
        var registry = PluginRegistry()
        registry.register("idle-timer") { s, _ in Probe(name: s.name, grace: nil) }
        registry.register("site-extra", summary: "A site's own.") { s, _ in Probe(name: s.name, grace: nil) }
        #expect(registry.entry(named: "idle-timer")?.summary == PluginRegistry.builtIn[0].summary)
        #expect(registry.entry(named: "idle-timer")?.factory != nil)
        #expect(registry.names.last == "site-extra")
    }

    @Test func makeChain_buildsDefaultChain_inOrder_whenNoSiteFile() throws {
        let policy = SitePolicy.builtIn
        let chain = try registry().makeChain(
            policy: policy,
            environment: environment(policy),
            clock: ManualClock(),
            session: SessionInfo(id: "t")
        )
        #expect(chain.names == ["idle-timer", "audit-log", "suspend-guard"])
    }

    @Test func makeInterceptors_followsSiteOrder_andPassesSettings() throws {
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
        #expect((built[0] as? Probe)?.grace == .seconds(5))
    }

    @Test func makeInterceptors_reportsUnreadKey_withSuggestion() {
        #expect(
            messages("[[plugin]]\nname = \"suspend-guard\"\ngrase = \"5s\"\n")
                == ["site.toml:3: unknown key 'grase' in plugin 'suspend-guard'; did you mean 'grace'?"]
        )
    }

    @Test func makeInterceptors_passesFactoryConfigError_withItsLine() {
        #expect(
            messages("[[plugin]]\nname = \"suspend-guard\"\ngrace = \"2m\"\n")
                == ["site.toml:3: 'grace' is 2m; allowed: 0s to 1m."]
        )
    }

    @Test func makeInterceptors_reportsFactoryFailure_atThePluginsLine() {
        #expect(
            messages("[[plugin]]\nname = \"idle-timer\"\n\n[[plugin]]\nname = \"focus-guard\"\n")
                == ["site.toml:4: plugin 'focus-guard' cannot start: cannot open /var/log/ward: permission denied."]
        )
    }

    @Test func makeInterceptors_reportsPluginWithoutFactory() {
        #expect(
            messages("[[plugin]]\nname = \"external\"\n")
                == ["site.toml:1: plugin 'external' cannot start: this build of Ward does not include it."]
        )
    }

    @Test func makeInterceptors_reportsUnknownPlugin_whenSettingsNameOne() {
        let settings = PluginSettings(name: "mystery", file: "site.toml", line: 9, values: [:])
        let error = configError {
            try registry().makeInterceptors([settings], environment: environment(.builtIn))
        }
        #expect(
            error?.description
                == "site.toml:9: unknown plugin 'mystery'; known plugins: idle-timer, audit-log, suspend-guard, focus-guard, external."
        )
    }

    @Test func makeInterceptors_reportsEveryPluginsErrors_together() {
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
        let policy = try SitePolicy.parse("[user.alice]\nidle-timeout = \"1m\"\n", file: "site.toml")
        let env = environment(policy)
        #expect(env.sessionPolicy.idleTimeout == .seconds(300))
        #expect(env.sessionPolicy(for: SessionInfo(id: "t", user: "alice", role: .clerk)).idleTimeout == .seconds(60))
    }
}
