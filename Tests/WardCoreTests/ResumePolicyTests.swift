import Testing
import WardCore

/// `[session] resume`: on by default, off where the site says so, for a role or a user too; a
/// user file may turn it off, never back on.
@Suite struct ResumePolicyTests {
    func parse(_ text: String) throws -> SitePolicy {
        try SitePolicy.parse(text, file: "/etc/ward/site.toml", plugins: standInPlugins)
    }

    func withUserFile(_ user: String, site: String) throws -> SitePolicy {
        try parse(site).applying(
            UserPreferences.parse(user, file: "/home/a/.config/ward/config.toml", plugins: standInPlugins)
        )
    }

    @Test func resume_isOnByDefault() throws {
        #expect(SessionPolicy.defaults.resume)
        #expect(try parse("[session]\nidle-timeout = \"2m\"\n").sitePolicy.resume)
    }

    @Test func resumeFalse_inSession_turnsItOff_forEveryone() throws {
        let policy = try parse("[session]\nresume = false\n")
        #expect(!policy.sitePolicy.resume)
        #expect(!policy.effectivePolicy(user: "alice", role: .clinician).resume)
    }

    @Test func aRoleOrUserTable_mayTurnItOffOrOn() throws {
        let policy = try parse(
            "[session]\nresume = false\n\n[role.clinician]\nresume = true\n\n[user.bob]\nresume = false\n"
        )
        #expect(policy.effectivePolicy(user: "alice", role: .clinician).resume)
        #expect(!policy.effectivePolicy(user: "alice", role: .clerk).resume)
        #expect(!policy.effectivePolicy(user: "bob", role: .clinician).resume)
    }

    @Test func aResumeThatIsNotABoolean_isAnError_namingTheLine() {
        let error = configError { try parse("[session]\nidle-timeout = \"2m\"\nresume = \"no\"\n") }
        #expect(error?.all.map(\.description) == ["/etc/ward/site.toml:3: 'resume' must be true or false."])
    }

    @Test func aUserFile_mayTurnItOff() throws {
        let policy = try withUserFile("[session]\nresume = false\n", site: "[session]\nidle-timeout = \"5m\"\n")
        #expect(!policy.effectivePolicy(user: "alice", role: .clinician).resume)
    }

    @Test func aUserFile_mayNotTurnItOn_whereTheSiteTurnsItOff() {
        let error = configError {
            try withUserFile("[session]\nresume = true\n", site: "[session]\nidle-timeout = \"5m\"\nresume = false\n")
        }
        #expect(
            error?.all.map(\.description) == [
                "/home/a/.config/ward/config.toml:2: 'resume' is true, but /etc/ward/site.toml:3 turns it off; "
                    + "a user file may only turn it off."
            ]
        )
    }
}
