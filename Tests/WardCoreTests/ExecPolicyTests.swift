import Glibc
import Testing

@testable import WardCore

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
        let policy = try exec(
            """
            [exec]
            allow = ["psql", { program = "sqlite3", args = ["-safe"], user-args = "files", read = ["/srv/x/"] }]

            [exec.commands.psql]
            on-lock = "kill"
            may-run = ["/usr/bin/less"]
            """
        )
        #expect(
            policy.summary == """

                [exec]    # line 1
                allow = ["psql", "sqlite3"]
                on-lock = "freeze"
                record-input = false
                redraw-key = "none"
                args = []
                user-args = "any"
                read = []
                write = []
                may-run = []
                sandbox = "on"
                lock-key = "Ctrl-Backslash Ctrl-Backslash"
                kill-grace = "2s"

                [exec.commands."psql"]
                on-lock = "kill"
                record-input = false
                redraw-key = "none"
                args = []
                user-args = "any"
                read = []
                write = []
                may-run = ["/usr/bin/less"]
                sandbox = "on"

                [exec.commands."sqlite3"]
                on-lock = "freeze"
                record-input = false
                redraw-key = "none"
                args = ["-safe"]
                user-args = "files"
                read = ["/srv/x"]
                write = []
                may-run = []
                sandbox = "on"

                """
        )
        let readBack = try exec(policy.summary)  // it reads back, to the same rules
        #expect(readBack.commands == policy.commands)
        #expect(readBack.defaults == policy.defaults)
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

// MARK: - The sandbox's keys

extension ExecPolicyTests {
    /// Every problem `text` has, as "LINE: message", in order.
    private func problems(_ text: String) -> [String] {
        (configError { try exec(text) }?.all ?? []).map { "\($0.line): \($0)" }
    }

    @Test func theSandboxKeys_readInExec_andOverriddenPerProgram() throws {
        let policy = try exec(
            """
            [exec]
            allow = ["psql", "sqlite3"]
            args = ["-X"]
            user-args = "none"
            read = ["/srv/extracts/", "//srv//shared/./x"]
            write = ["/srv/out"]
            may-run = ["/usr/bin/less"]
            sandbox = "on"

            [exec.commands.sqlite3]
            args = ["-safe", "-readonly"]
            user-args = "files"
            read = ["/srv/extracts"]
            """
        )
        let psql = try policy.program(for: "psql", exists: exists)
        #expect(psql.rules.arguments == ["-X"])
        #expect(psql.rules.userArguments == .none)
        #expect(psql.rules.read == ["/srv/extracts", "/srv/shared/x"])
        #expect(psql.rules.write == ["/srv/out"])
        #expect(psql.rules.mayRun == ["/usr/bin/less"])
        #expect(psql.rules.sandbox)
        let sqlite = try policy.program(for: "sqlite3", exists: exists)
        #expect(sqlite.rules.arguments == ["-safe", "-readonly"])
        #expect(sqlite.rules.userArguments == .files)
        #expect(sqlite.rules.read == ["/srv/extracts"])
        #expect(sqlite.rules.write == ["/srv/out"])  // from [exec]
        #expect(policy.warnings.isEmpty)
    }

    @Test func defaults_anyArguments_noPaths_sandboxOn() throws {
        let rules = try exec("[exec]\nallow = [\"sqlite3\"]\n").defaults
        #expect(rules.arguments.isEmpty)
        #expect(rules.userArguments == .any)
        #expect(rules.read.isEmpty && rules.write.isEmpty && rules.mayRun.isEmpty)
        #expect(rules.sandbox)
    }

    @Test func anInlineEntry_isTheProgram_withItsRulesOverExecs() throws {
        let policy = try exec(
            """
            [exec]
            on-lock = "kill"
            write = ["/srv/out"]
            allow = [
                "psql",
                { program = "sqlite3", args = ["-safe", "-readonly"], user-args = "files", read = ["/srv/extracts"] },
                { program = "/usr/local/bin/python3", sandbox = "off" },
            ]
            """
        )
        #expect(policy.allow == ["psql", "sqlite3", "/usr/local/bin/python3"])
        let sqlite = try policy.program(for: "sqlite3", exists: exists)
        #expect(sqlite.entry == "sqlite3")
        #expect(sqlite.rules.arguments == ["-safe", "-readonly"])
        #expect(sqlite.rules.userArguments == .files)
        #expect(sqlite.rules.read == ["/srv/extracts"])
        #expect(sqlite.rules.write == ["/srv/out"])
        #expect(sqlite.rules.onLock == .kill)
        #expect(try policy.program(for: "python3", exists: exists).rules.sandbox == false)
        #expect(try policy.program(for: "psql", exists: exists).rules == policy.defaults)
        #expect(policy.warnings.map(\.line) == [7])  // the entry's own line in a list spanning lines
    }

    @Test func badValues_nameTheirFileAndLine() {
        let found = problems(
            """
            [exec]
            allow = ["sqlite3", "psql", "less", "vi"]
            args = "-safe"
            user-args = "some"
            read = ["srv/extracts"]
            write = ["/srv/../home/ward"]
            may-run = ["/usr/bin/less", "less"]
            sandbox = false

            [exec.commands.psql]
            sandbox = "no"
            args = ["-X", 1]

            [exec.commands.less]
            may-run = "/usr/bin/vi"
            agrs = ["-R"]
            """
        )
        #expect(
            found == [
                "3: site.toml:3: 'args' must be an array of strings.",
                "4: site.toml:4: 'user-args' is \"some\"; allowed: \"any\", \"files\", \"none\".",
                "5: site.toml:5: 'read' is \"srv/extracts\", which is not an absolute path; allowed: absolute paths "
                    + "of files or directories, such as \"/srv/extracts\", without '..'.",
                "6: site.toml:6: 'write' is \"/srv/../home/ward\", which holds '..'; allowed: absolute paths "
                    + "of files or directories, such as \"/srv/extracts\", without '..'.",
                "7: site.toml:7: 'may-run' is \"less\", which is not an absolute path; allowed: absolute paths "
                    + "of programs, such as \"/usr/bin/less\", without '..'.",
                "8: site.toml:8: 'sandbox' is false; allowed: \"on\", \"off\".",
                "11: site.toml:11: 'sandbox' is \"no\"; allowed: \"on\", \"off\".",
                "12: site.toml:12: 'args' must be an array of strings.",
                "15: site.toml:15: 'may-run' must be an array of strings.",
                "16: site.toml:16: unknown key 'agrs' in [exec.commands.less]; did you mean 'args'?",
            ]
        )
    }

    @Test func inlineEntryMistakes_nameTheEntrysLine() {
        let found = problems(
            """
            [exec]
            allow = [
                { args = ["-safe"] },
                { program = 3 },
                { program = "bin/sqlite3" },
                { program = "sqlite3", user-arg = "files", lock-key = "none" },
                42,
            ]
            """
        )
        #expect(
            found == [
                "3: site.toml:3: an inline allow entry has no 'program'; add one.",
                "4: site.toml:4: 'program' must be a string.",
                "5: site.toml:5: 'allow' is \"bin/sqlite3\"; allowed: a program's name (looked up on "
                    + "/usr/local/bin:/usr/bin:/bin) or an absolute path.",
                "6: site.toml:6: unknown key 'lock-key' in the allow entry for \"sqlite3\".",
                "6: site.toml:6: unknown key 'user-arg' in the allow entry for \"sqlite3\"; did you mean 'user-args'?",
                "7: site.toml:7: 'allow' must be an array of program names, absolute paths and tables such as "
                    + "{ program = \"sqlite3\" }.",
            ]
        )
    }

    @Test func rulesInlineAndInATable_forOneProgram_conflict() {
        let found = problems(
            """
            [exec]
            allow = [
                { program = "sqlite3", user-args = "none" },
                { program = "psql" },
                { program = "sqlite3", user-args = "files" },
            ]

            [exec.commands.psql]
            on-lock = "kill"
            """
        )
        #expect(
            found == [
                "5: site.toml:5: \"sqlite3\" is listed with its rules twice in 'allow' (lines 3 and 5); keep one of them.",
                "8: site.toml:8: [exec.commands.psql] gives rules to \"psql\", and so does its inline entry in "
                    + "'allow' at line 4; keep one of them.",
            ]
        )
    }

    @Test func recordArguments_isAccepted_withAWarningThatItNoLongerDoesAnything() throws {
        let policy = try exec(
            "[exec]\nallow = [\"psql\"]\nrecord-arguments = false\n\n[exec.commands.psql]\nrecord-arguments = true\n"
        )
        #expect(
            policy.warnings.map(\.description) == [
                "site.toml:3: 'record-arguments' no longer does anything: exec-start always records the program's "
                    + "arguments (sanitized); remove the key.",
                "site.toml:6: 'record-arguments' no longer does anything: exec-start always records the program's "
                    + "arguments (sanitized); remove the key.",
            ]
        )
    }

    @Test func sandboxOff_isAWarning_namingEachProgram_andTheLineThatTurnedItOff() throws {
        let policy = try exec(
            """
            [exec]
            allow = ["psql", "sqlite3", { program = "python3", sandbox = "on" }]
            sandbox = "off"

            [exec.commands.sqlite3]
            on-lock = "kill"
            """
        )
        let lost =
            " runs outside the sandbox (sandbox = \"off\"): it may start any program and read or write whatever "
            + "the Ward account can, the records, the credential store and the audit log included; see "
            + "ward-site.toml(5), THE [exec] TABLE."
        #expect(
            policy.warnings.map(\.description) == [
                "site.toml:3: \"psql\"" + lost,
                "site.toml:3: \"sqlite3\"" + lost,
            ]
        )
        #expect(try exec("[exec]\nallow = [\"psql\"]\nsandbox = \"on\"\n").warnings.isEmpty)
    }

    // MARK: commandLine

    /// A program `user-args` and paths as given, named sqlite3.
    private func program(
        _ userArguments: ExecPolicy.UserArguments,
        read: [String] = [],
        write: [String] = []
    )
        -> ExecProgram
    {
        var rules = ExecPolicy.Rules()
        rules.arguments = ["-safe", "-readonly"]
        rules.userArguments = userArguments
        rules.read = read
        rules.write = write
        return ExecProgram(entry: "sqlite3", path: "/usr/bin/sqlite3", rules: rules)
    }

    private func refusal(_ body: () throws(ExecRefusal) -> [String]) -> String? {
        do {
            _ = try body()
            return nil
        } catch {
            #expect(error.exitStatus.rawValue == 77)
            return error.description
        }
    }

    @Test func commandLine_any_passesEverythingAfterTheSitesArguments() throws {
        let line = try program(.any).commandLine(userArguments: ["-cmd", ".shell bash", ":memory:"])
        #expect(line == ["-safe", "-readonly", "-cmd", ".shell bash", ":memory:"])
    }

    @Test func commandLine_none_refusesAnyArgument() throws {
        #expect(try program(.none).commandLine(userArguments: []) == ["-safe", "-readonly"])
        #expect(
            refusal { () throws(ExecRefusal) in try program(.none).commandLine(userArguments: ["x.db"]) }
                == "sqlite3: the argument 'x.db' is not allowed: the site fixes sqlite3's arguments "
                + "(user-args = \"none\"); run it without any."
        )
    }

    @Test func commandLine_files_takesFilesInsideReadAndWrite_only() throws {
        let scratch = ConfigScratch()
        defer { scratch.remove() }
        let root = ExecProgram.realPath(scratch.path)!
        let extract = scratch.write("extracts/a.db", "")
        scratch.write("extracts/sub/b.db", "")
        mkdir(scratch.path + "/out", 0o755)
        scratch.write("home/records.sqlite", "")
        symlink(root + "/home/records.sqlite", scratch.path + "/extracts/records.db")  // a link out
        symlink(root + "/home", scratch.path + "/extracts/home")  // a directory link out
        symlink(root + "/home/new.db", scratch.path + "/out/dangling.db")  // would create in the home
        symlink(root + "/extracts", scratch.path + "/out/extracts")  // a link to another allowed path
        let sqlite = program(.files, read: [scratch.path + "/extracts"], write: [scratch.path + "/out"])
        let allowed = "(read = [\"\(scratch.path)/extracts\"], write = [\"\(scratch.path)/out\"])."

        // Inside: absolute, relative to the working directory, through an allowed link, new under write.
        for argument in [
            extract, "a.db", "sub/../a.db", "./sub/b.db", "../out/new.db", "../out/extracts/a.db", "sub",
        ] {
            #expect(
                try sqlite.commandLine(userArguments: [argument], workingDirectory: scratch.path + "/extracts")
                    == ["-safe", "-readonly", argument],
                "\(argument)"
            )
        }
        func refused(_ argument: String) -> String? {
            refusal { () throws(ExecRefusal) in
                try sqlite.commandLine(userArguments: ["a.db", argument], workingDirectory: scratch.path + "/extracts")
            }
        }
        #expect(
            refused("-cmd")
                == "sqlite3: the argument '-cmd' is not allowed: the site lets you add only names of files "
                + "(user-args = \"files\"), not options."
        )
        #expect(
            refused("records.db")
                == "sqlite3: the argument 'records.db' is not allowed: it is \(root)/home/records.sqlite, outside "
                + "every path the site lets sqlite3 read or write \(allowed)"
        )
        #expect(refused("home/records.sqlite")?.contains("it is \(root)/home/records.sqlite, outside") == true)
        #expect(refused("../home/records.sqlite")?.contains("it is \(root)/home/records.sqlite, outside") == true)
        #expect(refused("/etc/passwd")?.contains("it is /etc/passwd, outside every path") == true)
        #expect(
            refused("missing.db")
                == "sqlite3: the argument 'missing.db' is not allowed: no such file, and the site lets sqlite3 make "
                + "new files only inside its write paths \(allowed)"
        )
        #expect(refused("../home/new.db")?.contains("no such file, and the site lets sqlite3 make new files") == true)
        #expect(
            refused("../out/dangling.db")
                == "sqlite3: the argument '../out/dangling.db' is not allowed: it is a symbolic link to nothing, "
                + "which would make a file wherever it points."
        )
        #expect(
            refused("../out/nodir/new.db")
                == "sqlite3: the argument '../out/nodir/new.db' is not allowed: no such file or directory."
        )
        #expect(refused("a.db/x")?.hasSuffix("not allowed: Not a directory.") == true)
        #expect(refused("")?.hasSuffix("not allowed: it is not the name of a file.") == true)
        #expect(refused("../out/..")?.contains("it is \(root), outside every path") == true)
    }

    @Test func commandLine_files_withNoPaths_refusesEveryFile() {
        #expect(
            refusal { () throws(ExecRefusal) in
                try program(.files).commandLine(userArguments: ["/etc/hostname"], workingDirectory: "/")
            }?.contains("outside every path the site lets sqlite3 read or write (read = [], write = []).") == true
        )
    }

    // MARK: pathProblems

    @Test func pathsThatReachTheHomeOrTheSiteFile_orAMissingHelper_areErrors() throws {
        let scratch = ConfigScratch()
        defer { scratch.remove() }
        let home = scratch.path + "/srv/ward"
        mkdir(scratch.path + "/srv", 0o755)
        mkdir(home, 0o700)
        symlink(scratch.path + "/srv", scratch.path + "/alias")
        let text = """
            [exec]
            allow = ["psql"]
            read = ["\(scratch.path)/srv", "\(scratch.path)/alias/ward/records.sqlite", "/usr/share/doc"]
            write = ["\(scratch.path)/etc/site.toml", "\(scratch.path)/out"]
            may-run = ["/bin/sh", "/usr/bin/no-such-helper"]
            """
        let site = scratch.write("etc/site.toml", text)
        let policy = try SitePolicy.parse(text, file: site, plugins: standInPlugins).exec
        let problems = policy.pathProblems(home: home, userFile: scratch.path + "/out/config.toml")
            .map { "\($0.line): \($0)" }
        let beside =
            ": a wrapped program never reaches the Ward home, the site file, the user file or the audit log, so "
            + "list paths beside them instead."
        #expect(
            problems == [
                "3: \(site):3: 'read' holds \"\(scratch.path)/srv\", which holds the Ward home \(home)" + beside,
                "3: \(site):3: 'read' holds \"\(scratch.path)/alias/ward/records.sqlite\", which lies inside the Ward "
                    + "home \(home)" + beside,
                "4: \(site):4: 'write' holds \"\(scratch.path)/etc/site.toml\", which is the site file \(site)"
                    + beside,
                "4: \(site):4: 'write' holds \"\(scratch.path)/out\", which holds the user file "
                    + "\(scratch.path)/out/config.toml" + beside,
                "5: \(site):5: 'may-run' holds \"/usr/bin/no-such-helper\", which is not an executable file here: the "
                    + "program's attempts to start it will fail. Install it, or remove it from may-run.",
            ]
        )
        #expect(policy.pathProblems(home: scratch.path + "/elsewhere", userFile: nil).count == 2)
        // An audit log kept outside the home is guarded as the home is.
        let kept = policy.pathProblems(
            home: scratch.path + "/elsewhere",
            userFile: nil,
            auditLog: "/usr/share/doc/audit.jsonl"
        )
        #expect(kept.contains { "\($0)".contains("which holds the audit log /usr/share/doc/audit.jsonl") })
    }
}
