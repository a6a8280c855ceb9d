import Testing
import WardCore

/// `[auth]`: who checks passwords. Ward's store unless the site says PAM; every mistake names
/// its line, as the other tables' do.
struct AuthSourceTests {
    private func auth(_ text: String) throws -> AuthSource {
        try SitePolicy.parse(text, file: "site.toml", plugins: standInPlugins).auth
    }

    private func messages(_ text: String) -> [String] {
        configError { try auth(text) }?.all.map(\.description) ?? []
    }

    @Test func noAuthTable_isWardsOwnStore() throws {
        #expect(try auth("") == .ward)
        #expect(try auth("[auth]\n") == .ward)
        #expect(try auth("[auth]\nsource = \"ward\"\n") == .ward)
    }

    @Test func pam_withoutAService_usesTheServiceNamedWard() throws {
        #expect(try auth("[auth]\nsource = \"pam\"\n") == .pam(service: "ward"))
        #expect(try auth("[auth]\nsource = \"pam\"\nservice = \"ward-clinic\"\n") == .pam(service: "ward-clinic"))
        #expect(try auth("[auth]\nservice = \"login\"\nsource = \"pam\"\n") == .pam(service: "login"))
    }

    @Test func anUnknownSource_namesTheLineAndTheChoices() {
        #expect(
            messages("[auth]\n\nsource = \"ldap\"\n") == [
                "site.toml:3: 'source' is \"ldap\"; allowed: \"ward\", \"pam\"."
            ]
        )
    }

    @Test func aServiceThatIsNoFileNameInPamD_isRefused() {
        for bad in ["../shadow", "", ".hidden", "ward service", "a/b"] {
            let found = messages("[auth]\nsource = \"pam\"\nservice = \"\(bad)\"\n")
            #expect(found.count == 1 && found[0].hasPrefix("site.toml:3: 'service' is \"\(bad)\""), "\(found)")
        }
    }

    @Test func aServiceWithoutSourcePam_isAConflict() {
        #expect(
            messages("[auth]\nservice = \"ward\"\n") == [
                "site.toml:2: 'service' names a PAM service, which is used only with source = \"pam\"; "
                    + "add source = \"pam\" to [auth], or remove 'service'."
            ]
        )
    }

    @Test func unknownKeys_andAMisspelledTable_areRefused() {
        let unknown = messages("[auth]\nsource = \"pam\"\nservise = \"ward\"\n")
        #expect(unknown.count == 1 && unknown[0].hasPrefix("site.toml:3: unknown key 'servise'"), "\(unknown)")
        #expect(unknown.first?.contains("service") == true)
        let table = messages("[auht]\nsource = \"pam\"\n")
        #expect(table.count == 1 && table[0].contains("'auht'") && table[0].contains("auth"), "\(table)")
        #expect(messages("auth = \"pam\"\n").first?.contains("a table ([auth])") == true)
    }
}

extension AuthSourceTests {
    @Test func summary_isWhatASiteFileWouldWrite() throws {
        #expect(AuthSource.ward.summary == "\n[auth]\nsource = \"ward\"\n")
        let pam = try auth(AuthSource.pam(service: "ward-x").summary)
        #expect(pam == .pam(service: "ward-x"))
    }
}
