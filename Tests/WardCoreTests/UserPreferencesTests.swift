import Testing
import WardCore

private let site = """
    [session]
    idle-timeout = "5m"
    max-failed-attempts = 5

    [[plugin]]
    name = "idle-timer"

    [[plugin]]
    name = "suspend-guard"

    [role.auditor]
    idle-timeout = "30m"
    """

private func apply(_ user: String, site text: String = site) throws -> SitePolicy {
    let policy = try SitePolicy.parse(text, file: "/etc/ward/site.toml", plugins: standInPlugins)
    return try policy.applying(
        UserPreferences.parse(user, file: "/home/a/.config/ward/config.toml", plugins: standInPlugins)
    )
}

private func messages(_ user: String, site text: String = site) -> [String] {
    configError { try apply(user, site: text) }?.all.map(\.description) ?? []
}

@Suite struct UserPreferencesTests {
    @Test func userFile_mayShortenTimeouts_andSetCosmetics() throws {
        let policy = try apply(
            """
            [session]
            idle-timeout = "2m"
            max-failed-attempts = 3
            max-session = "4h"

            [display]
            color = "never"
            bell = true
            """
        )
        let mine = policy.effectivePolicy(user: "alice", role: .clinician)
        #expect(mine.idleTimeout == .seconds(120))
        #expect(mine.maxFailedAttempts == 3)
        #expect(mine.maxSession == .seconds(4 * 3600))
        #expect(policy.preferences?.display.color == .never)
        #expect(policy.preferences?.display.bell == true)
    }

    @Test func userFile_mayNotLengthenSiteTimeout_namingBothFiles() {
        #expect(
            messages("[session]\nidle-timeout = \"1h\"\n")
                == [
                    "/home/a/.config/ward/config.toml:2: 'idle-timeout' is \"1h\", longer than \"30m\" set by /etc/ward/site.toml:12; a user file may only shorten a site timeout."
                ]
        )
        #expect(
            messages("[session]\nmax-failed-attempts = 9\n")
                == [
                    "/home/a/.config/ward/config.toml:2: 'max-failed-attempts' is 9, longer than 5 set by /etc/ward/site.toml:3; a user file may only shorten a site timeout."
                ]
        )
    }

    @Test func userFile_mayNotLengthenBuiltInDefault() {
        #expect(
            messages("[session]\nsignout-after = \"1h\"\n")
                == [
                    "/home/a/.config/ward/config.toml:2: 'signout-after' is \"1h\", longer than \"15m\" set by (built-in defaults); a user file may only shorten a site timeout."
                ]
        )
    }

    @Test func userFile_mayNotTurnOffSiteMaxSession() {
        #expect(
            messages("[session]\nmax-session = \"off\"\n", site: "[session]\nmax-session = \"8h\"\n")
                == [
                    "/home/a/.config/ward/config.toml:2: 'max-session' is \"off\", longer than \"8h\" set by /etc/ward/site.toml:2; a user file may only shorten a site timeout."
                ]
        )
    }

    @Test func userFile_isClampedToTheSignedOnUsersCeiling() throws {
        // 20m is within the auditor role's 30m, so the file is accepted; a clinician still gets 5m.
        let policy = try apply("[session]\nidle-timeout = \"20m\"\n")
        #expect(policy.effectivePolicy(user: "a", role: .auditor).idleTimeout == .seconds(1200))
        #expect(policy.effectivePolicy(user: "a", role: .clinician).idleTimeout == .seconds(300))
    }

    @Test func userFile_mayNotDropSitePlugin_namingBothFiles() {
        #expect(
            messages("[plugins]\ndisable = [\"suspend-guard\"]\n")
                == [
                    "/home/a/.config/ward/config.toml:2: cannot disable plugin 'suspend-guard': /etc/ward/site.toml:8 enables it, and a user file may not remove a site plugin."
                ]
        )
        #expect(
            messages("[plugins]\ndisable = [\"audit-log\"]\n", site: "")
                == [
                    "/home/a/.config/ward/config.toml:2: cannot disable plugin 'audit-log': (built-in defaults) enables it, and a user file may not remove a site plugin."
                ]
        )
    }

    @Test func userFile_mayDisablePluginTheSiteDoesNotRun() throws {
        let policy = try apply("[plugins]\ndisable = [\"focus-guard\"]\n")
        #expect(policy.pluginNames == ["idle-timer", "suspend-guard"])
    }

    @Test func userFile_reportsItsOwnErrors() {
        #expect(
            messages("[display]\ncolor = \"pink\"\nbel = true\n")
                == [
                    "/home/a/.config/ward/config.toml:2: 'color' is \"pink\"; allowed: \"auto\", \"always\", \"never\".",
                    "/home/a/.config/ward/config.toml:3: unknown key 'bel' in [display]; did you mean 'bell'?",
                ]
        )
        #expect(
            messages("[[plugin]]\nname = \"idle-timer\"\n")
                == ["/home/a/.config/ward/config.toml:1: 'plugin' must be a table."]
        )
        #expect(
            messages("[sesion]\n")
                == [
                    "/home/a/.config/ward/config.toml:1: unknown key 'sesion' in the user file; did you mean 'session'?"
                ]
        )
        #expect(
            messages("[session]\nidle-timeout = \"20s\"\n")
                == [
                    "/home/a/.config/ward/config.toml:2: 'warn-before' (30s) must be shorter than 'idle-timeout' (20s); shorten it, or set it to \"0s\" for no warning."
                ]
        )
    }

    @Test func effectivePolicy_keepsWarningBeforeLock_whenOverridesCollide() throws {
        // The role warns 5m before a 30m lock; the user file shortens the lock to 2m.
        let policy = try apply(
            "[session]\nidle-timeout = \"2m\"\n",
            site: "[role.auditor]\nidle-timeout = \"30m\"\nwarn-before = \"5m\"\n"
        )
        let mine = policy.effectivePolicy(user: "a", role: .auditor)
        #expect(mine.idleTimeout == .seconds(120))
        #expect(mine.warnBefore == .seconds(60))
    }
}
