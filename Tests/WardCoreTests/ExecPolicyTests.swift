import Testing
import WardCore

/// `[exec]`: what `ward exec` may wrap, and how.
struct ExecPolicyTests {
    private func exec(_ text: String) throws -> ExecPolicy {
        try SitePolicy.parse(text, file: "site.toml", plugins: standInPlugins).exec
    }

    /// Programs that exist, for resolving without the real file system.
    private let installed: Set<String> = ["/usr/bin/sqlite3", "/usr/bin/psql", "/usr/local/bin/python3", "/opt/x/tool"]
    private func exists(_ path: String) -> Bool { installed.contains(path) }

    @Test func noExecTable_allowsNothing() throws {
        let policy = try exec("")
        #expect(policy.allow.isEmpty)
        #expect(throws: ExecRefusal.nothingAllowed(command: "sqlite3", file: "site.toml")) {
            try policy.program(for: "sqlite3", exists: exists)
        }
    }

    @Test func aBareName_isLookedUpOnTheFixedPath_andMatchesAnAbsoluteEntry() throws {
        let policy = try exec("[exec]\nallow = [\"python3\", \"/usr/bin/sqlite3\"]\n")
        #expect(try policy.program(for: "python3", exists: exists).path == "/usr/local/bin/python3")
        #expect(try policy.program(for: "sqlite3", exists: exists).entry == "/usr/bin/sqlite3")
        #expect(try policy.program(for: "/usr/bin/sqlite3", exists: exists).path == "/usr/bin/sqlite3")
        #expect(try policy.program(for: "/usr/local/bin/python3", exists: exists).entry == "python3")
    }

    @Test func anythingElse_isRefused_with77_namingIt() throws {
        let policy = try exec("[exec]\nallow = [\"sqlite3\"]\n")
        for command in ["psql", "./sqlite3", "bin/sqlite3", "/opt/x/tool"] {
            #expect(throws: ExecRefusal.notAllowed(command: command, file: "site.toml", line: 1, allowed: ["sqlite3"]))
            {
                try policy.program(for: command, exists: exists)
            }
        }
        #expect(ExecRefusal.notAllowed(command: "psql", file: "s", line: 1, allowed: []).exitStatus.rawValue == 77)
    }

    @Test func anAllowedNameThatIsNotInstalled_is127() throws {
        let policy = try exec("[exec]\nallow = [\"mysql\"]\n")
        #expect(throws: ExecRefusal.notFound(command: "mysql", searched: ExecPolicy.searchPath)) {
            try policy.program(for: "mysql", exists: exists)
        }
    }

    @Test func perCommandTables_overrideExecs_rules() throws {
        let policy = try exec(
            """
            [exec]
            allow = ["psql", "sqlite3"]
            on-lock = "freeze"
            record-arguments = true
            lock-key = "Ctrl-]"
            redraw-key = "Ctrl-L"

            [exec.commands.psql]
            on-lock = "kill"
            record-input = true
            """
        )
        let psql = try policy.program(for: "psql", exists: exists)
        #expect(psql.rules.onLock == .kill)
        #expect(psql.rules.recordInput)
        #expect(psql.rules.recordArguments)  // from [exec]
        #expect(psql.rules.redrawKey == [0x0C])
        let sqlite = try policy.program(for: "sqlite3", exists: exists)
        #expect(sqlite.rules.onLock == .freeze)
        #expect(!sqlite.rules.recordInput)
        #expect(policy.lockKey == [[0x1D]])
    }

    @Test func defaults_freezeNoInputAndCtrlBackslashTwice() throws {
        let policy = try exec("[exec]\nallow = [\"sqlite3\"]\n")
        #expect(policy.defaults == ExecPolicy.Rules())
        #expect(policy.defaults.onLock == .freeze)
        #expect(policy.lockKey == [[0x1C], [0x1C]])
    }

    @Test func mistakes_nameTheirLine() {
        let error = configError {
            try exec(
                """
                [exec]
                allow = ["sqlite3", "bin/psql"]
                on-lock = "pause"
                lock-key = "F12"
                record-input = "yes"
                recrod-arguments = true

                [exec.commands.psql]
                on-lock = "kill"
                """
            )
        }
        let lines = error?.all.map { "\($0.line): \($0)" } ?? []
        #expect(lines.count == 6)
        #expect(lines.contains { $0.hasPrefix("2: site.toml:2: 'allow' is \"bin/psql\"") })
        #expect(
            lines.contains { $0.hasPrefix("3: site.toml:3: 'on-lock' is \"pause\"; allowed: \"freeze\", \"kill\"") }
        )
        #expect(lines.contains { $0.hasPrefix("4: site.toml:4: 'lock-key' is \"F12\"") })
        #expect(lines.contains { $0.hasPrefix("5: site.toml:5: 'record-input' must be true or false") })
        #expect(
            lines.contains {
                $0.contains("unknown key 'recrod-arguments'") && $0.contains("did you mean 'record-arguments'")
            }
        )
        #expect(
            lines.contains {
                $0.hasPrefix("8: site.toml:8: [exec.commands.psql] is for a program 'allow' does not list")
            }
        )
    }

    @Test func summary_writesTheTableAsASiteFileWould() throws {
        let policy = try exec("[exec]\nallow = [\"psql\"]\n\n[exec.commands.psql]\non-lock = \"kill\"\n")
        #expect(
            policy.summary == """

                [exec]    # line 1
                allow = ["psql"]
                on-lock = "freeze"
                record-input = false
                record-arguments = false
                redraw-key = "none"
                lock-key = "Ctrl-Backslash Ctrl-Backslash"
                kill-grace = "2s"

                [exec.commands."psql"]
                on-lock = "kill"
                record-input = false
                record-arguments = false
                redraw-key = "none"

                """
        )
        #expect(try exec(policy.summary).commands["psql"]?.onLock == .kill)  // it reads back
    }

    @Test func keyNames_roundTrip() {
        #expect(KeyName.parseSequence("Ctrl-\\ Ctrl-\\") == [[0x1C], [0x1C]])
        #expect(KeyName.parseSequence("ctrl-a") == [[0x01]])
        #expect(KeyName.parseSequence("none") == [])
        #expect(KeyName.parseSequence("Alt-x") == nil)
        #expect(KeyName.parseSequence("Ctrl-Backslash") == [[0x1C]])
        #expect(KeyName.describe([[0x1C], [0x1C]]) == "Ctrl-Backslash Ctrl-Backslash")
        #expect(KeyName.describe([[0x0C]]) == "Ctrl-L")
        #expect(KeyName.describe([]) == "none")
    }
}
