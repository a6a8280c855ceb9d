import Testing

@testable import WardCore

/// The site file as docs/ARCHITECTURE.md §10 shows it.
private let designExample = """
    [session]
    idle-timeout = "5m"        # lock after this long without a key
    warn-before  = "30s"       # a notice above the prompt before locking
    signout-after = "15m"      # locked this long: end the session entirely
    max-failed-attempts = 5    # then sign out, with backoff between tries

    [[plugin]]
    name = "idle-timer"

    [[plugin]]
    name = "audit-log"
    path = "/var/log/ward/audit.jsonl"
    fsync = "always"           # always | interval | never

    [[plugin]]
    name = "suspend-guard"
    grace = "15s"              # away longer than this after Ctrl-Z: locked; 0 wipes before stopping

    [[plugin]]
    name = "external"
    command = ["/usr/local/lib/ward/break-glass.py"]
    events = ["line"]
    timeout = "500ms"
    on-failure = "deny"        # deny | allow
    """

private func parse(_ text: String) throws -> SitePolicy {
    try SitePolicy.parse(text, file: "site.toml", plugins: standInPlugins)
}

private func messages(_ text: String) -> [String] {
    configError { try parse(text) }?.all.map(\.description) ?? []
}

@Suite struct SitePolicyTests {
    // MARK: Finding the file

    @Test func aTable_isNamedInMessages_asTheSiteFileWritesIt() {
        #expect(ConfigDocument.tableHeader(["session"]) == "[session]")
        #expect(ConfigDocument.tableHeader(["user", "alice"]) == "[user.alice]")
        #expect(ConfigDocument.tableHeader(["", "x"]) == "[.x]")
    }

    @Test func locate_prefersOption_thenEnvironment_thenSystemFile() {
        let env = ["WARD_SITE": "/env/site.toml"]
        #expect(SiteFileLocation.locate(option: "/opt/site.toml", environment: env) == .named("/opt/site.toml"))
        #expect(SiteFileLocation.locate(option: nil, environment: env) == .named("/env/site.toml"))
        #expect(SiteFileLocation.locate(option: nil, environment: [:]) == .system("/etc/ward/site.toml"))
        #expect(SiteFileLocation.locate(option: "", environment: ["WARD_SITE": ""]) == .system("/etc/ward/site.toml"))
    }

    @Test func loadSite_usesBuiltInDefaults_whenSystemFileIsMissing() throws {
        let policy = try SitePolicy.loadSite(.system("/nonexistent/ward/site.toml"), plugins: standInPlugins)
        #expect(policy.file == "(built-in defaults)")
        #expect(policy.pluginNames == ["idle-timer", "audit-log", "suspend-guard"])
        #expect(policy.effectivePolicy(user: nil, role: nil) == SessionPolicy.defaults)
        #expect(SessionPolicy.defaults.idleTimeout == .seconds(300))
        #expect(SessionPolicy.defaults.warnBefore == .seconds(30))
        #expect(SessionPolicy.defaults.signoutAfter == .seconds(900))
        #expect(SessionPolicy.defaults.maxFailedAttempts == 5)
        #expect(SessionPolicy.defaults.passwordTimeout == .seconds(60))
        #expect(SessionPolicy.defaults.maxSession == nil)
    }

    @Test func loadSite_refusesNamedFile_whenMissing() {
        let error = configError { try SitePolicy.loadSite(.named("/nonexistent/site.toml"), plugins: standInPlugins) }
        #expect(error?.description == "/nonexistent/site.toml: cannot read the file: no such file or directory.")
        #expect(error?.exitStatus == .configuration)
    }

    @Test func loadSite_refusesFile_whenEveryoneMayWriteIt() {
        let scratch = ConfigScratch()
        defer { scratch.remove() }
        let path = scratch.write("site.toml", "[session]\n", mode: 0o666)
        let error = configError { try SitePolicy.loadSite(.named(path), plugins: standInPlugins) }
        #expect(
            error?.description
                == "\(path): everyone may write it; anyone could change the policy in it. Make it writable by its owner only."
        )
    }

    @Test func loadSite_refusesDirectory() {
        let scratch = ConfigScratch()
        defer { scratch.remove() }
        let error = configError { try SitePolicy.loadSite(.named(scratch.path), plugins: standInPlugins) }
        #expect(error?.description == "\(scratch.path): cannot read the file: not a regular file.")
    }

    @Test func load_readsSiteFromEnvironment_andUserFileFromXDGConfigHome() throws {
        let scratch = ConfigScratch()
        defer { scratch.remove() }
        let site = scratch.write("site.toml", "[session]\nidle-timeout = \"10m\"\n")
        scratch.write("config/ward/config.toml", "[session]\nidle-timeout = \"2m\"\n")
        let policy = try SitePolicy.load(
            siteOption: nil,
            environment: ["WARD_SITE": site, "XDG_CONFIG_HOME": scratch.path + "/config"],
            plugins: standInPlugins
        )
        #expect(policy.file == site)
        #expect(policy.preferences?.file == scratch.path + "/config/ward/config.toml")
        #expect(policy.effectivePolicy(user: nil, role: nil).idleTimeout == .seconds(120))
    }

    @Test func userFilePath_fallsBackToHomeConfig() {
        #expect(SitePolicy.userFilePath(environment: ["XDG_CONFIG_HOME": "/x"]) == "/x/ward/config.toml")
        #expect(SitePolicy.userFilePath(environment: ["HOME": "/home/a"]) == "/home/a/.config/ward/config.toml")
        #expect(
            SitePolicy.userFilePath(environment: ["XDG_CONFIG_HOME": "relative", "HOME": "/h"])
                == "/h/.config/ward/config.toml"
        )
        #expect(SitePolicy.userFilePath(environment: [:]) == nil)
    }

    // MARK: Parsing

    @Test func parse_readsDesignExample_inOrder_withLines() throws {
        let policy = try parse(designExample)
        let session = policy.sitePolicy
        #expect(session.idleTimeout == .seconds(300))
        #expect(session.warnBefore == .seconds(30))
        #expect(session.signoutAfter == .seconds(900))
        #expect(session.maxFailedAttempts == 5)
        #expect(policy.pluginNames == ["idle-timer", "audit-log", "suspend-guard", "external"])
        let plugins = policy.plugins
        #expect(plugins.map(\.line) == [7, 10, 15, 19])
        #expect(plugins[1].line(of: "fsync") == 13)
        #expect(try plugins[1].choice("fsync", from: ["always", "interval", "never"]) == "always")
        #expect(try plugins[3].strings("command") == ["/usr/local/lib/ward/break-glass.py"])
        #expect(try plugins[3].duration("timeout") == .milliseconds(500))
        #expect(plugins[3].line(of: "on-failure") == 24)
        #expect(policy.session.lines[.maxFailedAttempts] == 5)
    }

    @Test func parse_usesDefaultChain_whenSiteFileHasNoPlugins() throws {
        let policy = try parse("[session]\nidle-timeout = \"2m\"\n")
        #expect(policy.pluginNames == ["idle-timer", "audit-log", "suspend-guard"])
        #expect(policy.plugins.allSatisfy { $0.line == 0 })
    }

    @Test func parse_keepsEmptyChain_whenSiteSaysSo() throws {
        #expect(try parse("plugin = []\n").pluginNames == [])
    }

    @Test func parse_readsMaxSession_offOrDuration() throws {
        #expect(try parse("[session]\nmax-session = \"off\"\n").sitePolicy.maxSession == nil)
        #expect(try parse("[session]\nmax-session = \"8h\"\n").sitePolicy.maxSession == .seconds(8 * 3600))
        #expect(try parse("[session]\npassword-timeout = \"30s\"\n").sitePolicy.passwordTimeout == .seconds(30))
    }

    @Test func parse_findsLines_pastMultiLineArraysAndStrings() throws {
        let text = """
            # comment [not a table]
            [session]
            idle-timeout = "5m"

            [[plugin]]
            name = "external"
            command = [
              "/usr/bin/python3",   # the interpreter
              "/opt/plugin.py",
            ]
            note = \"\"\"
            [[plugin]]
            name = "x"
            \"\"\"
            events = ["line"]

            [plugin.settings]
            from = "08:00"

            [[plugin]]
            'name' = "idle-timer"
            """
        let policy = try SitePolicy.parse(text, file: "site.toml", plugins: standInPlugins)
        let plugins = policy.plugins
        #expect(plugins.map(\.line) == [5, 20])
        #expect(plugins[0].line(of: "command") == 7)
        #expect(plugins[0].line(of: "note") == 11)
        #expect(plugins[0].line(of: "events") == 15)
        #expect(plugins[0].line(of: "settings") == 17)
        #expect(try plugins[0].table("settings") == ["from": .string("08:00")])
        #expect(plugins[1].line(of: "name") == 21)
    }

    // MARK: Errors, each with its file and line

    @Test func parse_reportsBadTOML_withItsLine() {
        let error = configError { try parse("[session]\nidle-timeout = \"5m\"\nwarn-before = \n") }
        #expect(error?.line == 3)
        #expect(error?.description.hasPrefix("site.toml:3: not valid TOML: ") == true)
    }

    // Found by Fuzzing/run SiteFile: toml++ asserts instead of reporting such a header, and the
    // assertion aborted Ward (exit 134) on `[é]`, `[#]` or `[[` at the end of a line.
    @Test(arguments: [
        ("[session]\nidle-timeout = \"5m\"\n[#]\n", 3),
        ("[\u{E9}]\n", 1),
        ("# site\n[[\u{FFFD}\u{FFFD}]]\nname = \"idle-timer\"\n", 2),
        ("[ \u{1}]\n", 1),
        ("[\n", 1),
        ("[[\r\n", 1),
        ("[[ [x]]\n", 1),
        ("\u{FEFF}[\u{FFFD}]\n", 1),  // after a byte order mark, which toml++ skips
    ])
    func parse_reportsTableNameNoKeyCanStartWith_withItsLine_insteadOfAborting(text: String, line: Int) {
        let error = configError { try parse(text) }
        #expect(error?.line == line)
        #expect(error?.description.hasPrefix("site.toml:\(line): not valid TOML: a table name must start") == true)
        let user = configError { try UserPreferences.parse(text, file: "config.toml", plugins: standInPlugins) }
        #expect(user?.description.hasPrefix("config.toml:\(line): not valid TOML: a table name must start") == true)
    }

    /// Found by fuzzing (`idle-timeout = [}` aborted `ward config check` with SIGABRT in toml++).
    @Test(arguments: [
        ("[session]\nidle-timeout = [}\n", 2), ("a = [1,}\n", 1), ("a = [[}]]\n", 1), ("a = [\n\n}\n", 3),
        ("a = [ # c\n}\n", 2), ("a = {b = [}}\n", 1), ("x = 1\na = [\"s\", [\n  },\n]\n", 3),
    ])
    func parse_reportsArrayElementStartingWithABrace_withItsLine_insteadOfAborting(text: String, line: Int) {
        let error = configError { try parse(text) }
        #expect(error?.line == line)
        #expect(error?.description.hasPrefix("site.toml:\(line): not valid TOML: an array's element cannot") == true)
        let user = configError { try UserPreferences.parse(text, file: "config.toml", plugins: standInPlugins) }
        #expect(user?.description.hasPrefix("config.toml:\(line): not valid TOML: an array's element") == true)
    }

    @Test func parse_acceptsBracesThatCloseInlineTablesInsideArrays() throws {
        // `}` after an inline table's value, and `[{…}]`, are valid TOML and must not be refused.
        #expect(messages("a = [{b = 1}, {c = [2]}]\nd = {e = []}\n").allSatisfy { !$0.contains("not valid TOML") })
    }

    @Test func parse_takesNoLineInsideAStringOrAnArray_forATableHeader() throws {
        let text = """
            [[plugin]]
            name = "external"
            command = ["/usr/local/bin/review", \"\"\"
            [#] not a header
            \"\"\"]
            events = [
            ["line"],
              [ "#x" ],
            ]
            """
        // The values are wrong for Ward, but the file is valid TOML and read as such.
        #expect(messages(text).allSatisfy { !$0.contains("not valid TOML") })
    }

    @Test func parse_reportsDuplicateKey_asBadTOML() {
        let error = configError { try parse("[session]\nidle-timeout = \"5m\"\nidle-timeout = \"6m\"\n") }
        #expect(error?.line == 3)
        #expect(error?.description.hasPrefix("site.toml:3: not valid TOML: ") == true)
    }

    @Test func parse_reportsUnknownSessionKey_withSuggestion() {
        #expect(
            messages("[session]\nidle-timout = \"5m\"\n")
                == ["site.toml:2: unknown key 'idle-timout' in [session]; did you mean 'idle-timeout'?"]
        )
        #expect(messages("[session]\ncolour = 1\n") == ["site.toml:2: unknown key 'colour' in [session]."])
    }

    @Test func parse_reportsUnknownTable() {
        #expect(
            messages("[sesion]\nidle-timeout = \"5m\"\n")
                == ["site.toml:1: unknown key 'sesion' in the site file; did you mean 'session'?"]
        )
    }

    @Test func parse_reportsUnknownPlugin_atItsName() {
        #expect(
            messages("[[plugin]]\nname = \"idle-timer\"\n\n[[plugin]]\nname = \"idle-timr\"\n")
                == [
                    "site.toml:5: unknown plugin 'idle-timr'; known plugins: idle-timer, audit-log, suspend-guard, focus-guard, external."
                ]
        )
    }

    @Test func parse_reportsPluginWithoutName() {
        #expect(messages("[[plugin]]\ngrace = \"1s\"\n") == ["site.toml:1: [[plugin]] has no 'name'; add one."])
        #expect(messages("[[plugin]]\nname = 3\n") == ["site.toml:2: 'name' must be a string."])
    }

    @Test func parse_reportsDuplicatePlugin_butAllowsSeveralExternal() throws {
        #expect(
            messages("[[plugin]]\nname = \"idle-timer\"\n[[plugin]]\nname = \"idle-timer\"\n")
                == ["site.toml:3: plugin 'idle-timer' is already in the chain at line 1; remove one of them."]
        )
        let policy = try parse("[[plugin]]\nname = \"external\"\n[[plugin]]\nname = \"external\"\n")
        #expect(policy.pluginNames == ["external", "external"])
    }

    @Test func parse_reportsBadDuration() {
        #expect(
            messages("[session]\nidle-timeout = \"5 minutes\"\n")
                == [
                    "site.toml:2: 'idle-timeout' is \"5 minutes\", not a duration; write it as \"30s\", \"5m\", \"1h30m\" or \"500ms\"."
                ]
        )
        #expect(
            messages("[session]\nidle-timeout = 300\n")
                == [
                    "site.toml:2: 'idle-timeout' is 300, not a duration; write it as \"30s\", \"5m\", \"1h30m\" or \"500ms\"."
                ]
        )
    }

    @Test func parse_reportsValuesOutOfRange() {
        #expect(
            messages("[session]\nidle-timeout = \"48h\"\n")
                == ["site.toml:2: 'idle-timeout' is 48h; allowed: 1s to 24h."]
        )
        #expect(
            messages("[session]\nmax-failed-attempts = 0\n")
                == ["site.toml:2: 'max-failed-attempts' is 0; allowed: 1 to 100."]
        )
        #expect(
            messages("[session]\nmax-failed-attempts = \"5\"\n") == [
                "site.toml:2: 'max-failed-attempts' must be a whole number."
            ]
        )
    }

    @Test func parse_reportsWarningNotBeforeIdleTimeout() {
        #expect(
            messages("[session]\nidle-timeout = \"30s\"\nwarn-before = \"30s\"\n")
                == [
                    "site.toml:3: 'warn-before' (30s) must be shorter than 'idle-timeout' (30s); shorten it, or set it to \"0s\" for no warning."
                ]
        )
        #expect(messages("[session]\nidle-timeout = \"10s\"\nwarn-before = \"0s\"\n") == [])
        #expect(
            messages("[session]\nidle-timeout = \"20s\"\n")
                == [
                    "site.toml:2: 'warn-before' (30s) must be shorter than 'idle-timeout' (20s); shorten it, or set it to \"0s\" for no warning."
                ]
        )
    }

    @Test func parse_reportsEveryError_inLineOrder() {
        let text = """
            [session]
            idle-timeout = "5 minutes"
            max-failed-attempts = 500
            bogus = true

            [[plugin]]
            name = "nope"

            [role.nurse]
            idle-timeout = "1m"
            """
        let error = configError { try parse(text) }
        #expect(error?.all.map(\.line) == [2, 3, 4, 7, 9])
        #expect(error?.exitStatus == .configuration)
        #expect(error?.description.split(separator: "\n").count == 5)
        #expect(
            error?.all.last?.description
                == "site.toml:9: 'role.nurse' is \"nurse\"; allowed: \"clinician\", \"clerk\", \"auditor\"."
        )
    }

    @Test func parse_reportsWrongShapes() {
        #expect(messages("session = 5\n") == ["site.toml:1: 'session' must be a table ([session])."])
        #expect(
            messages("[plugin]\nname = \"x\"\n") == ["site.toml:1: 'plugin' must be an array of tables ([[plugin]])."]
        )
        #expect(
            messages("[user]\nidle-timeout = \"1m\"\n") == [
                "site.toml:2: 'user.idle-timeout' must be a table ([user.idle-timeout])."
            ]
        )
    }

    @Test func parse_refusesDates() {
        #expect(
            messages("[[plugin]]\nname = \"external\"\nsince = 2024-01-01\n")
                == ["site.toml:3: 'since' must be quoted; Ward takes no TOML dates."]
        )
    }

    // MARK: Per-user and per-role overrides (VistA order)

    @Test func effectivePolicy_prefersUser_thenRole_thenSite() throws {
        let policy = try parse(
            """
            [session]
            idle-timeout = "5m"
            signout-after = "15m"

            [role.clerk]
            idle-timeout = "3m"
            signout-after = "10m"

            [user.alice]
            idle-timeout = "1m"
            """
        )
        let alice = policy.effectivePolicy(user: "alice", role: .clerk)
        #expect(alice.idleTimeout == .seconds(60))
        #expect(alice.signoutAfter == .seconds(600))
        let bob = policy.effectivePolicy(user: "bob", role: .clerk)
        #expect(bob.idleTimeout == .seconds(180))
        let carol = policy.effectivePolicy(user: "carol", role: .clinician)
        #expect(carol.idleTimeout == .seconds(300))
        #expect(carol.signoutAfter == .seconds(900))
        #expect(policy.effectivePolicy(user: nil, role: nil).idleTimeout == .seconds(300))
    }

    @Test func parse_reportsOverrideErrors_withTheirTable() {
        #expect(
            messages("[user.alice]\nidle-timout = \"1m\"\n")
                == ["site.toml:2: unknown key 'idle-timout' in [user.alice]; did you mean 'idle-timeout'?"]
        )
        #expect(
            messages("[user.alice]\nidle-timeout = \"20s\"\n")
                == [
                    "site.toml:2: 'warn-before' (30s) must be shorter than 'idle-timeout' (20s); shorten it, or set it to \"0s\" for no warning."
                ]
        )
    }

    /// A session refuses the file at its first problem list; `ward config check` goes on with
    /// what parsed, so that the plugins are built and their own problems found in the same run.
    @Test func parseReportingAll_keepsThePluginsOfAFileWithAnErrorElsewhere() {
        let text = "[session]\nidle-timeout = \"5 minutes\"\n\n[[plugin]]\nname = \"audit-log\"\nfsnyc = \"always\"\n"
        let (policy, errors) = SitePolicy.parseReportingAll(text, file: "site.toml", plugins: standInPlugins)
        #expect(errors.map(\.line) == [2])
        #expect(policy?.pluginNames == ["audit-log"])
        #expect(policy?.plugins.first?.allValues.map(\.key).contains("fsnyc") == true)
        #expect(messages(text) == errors.map(\.description))

        let (none, syntax) = SitePolicy.parseReportingAll("[session\n", file: "site.toml", plugins: standInPlugins)
        #expect(none == nil)
        #expect(syntax.count == 1 && syntax[0].line == 1)
    }
}
