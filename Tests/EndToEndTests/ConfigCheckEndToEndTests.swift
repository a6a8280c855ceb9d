import Foundation
import Glibc
import Testing

/// `ward config check` as an administrator meets it: every problem in one run, warnings for
/// tables that apply to nobody, the limits a user's session gets, the PAM service, the site
/// file's owner and mode, and the same findings as JSON for monitoring.
@Suite struct ConfigCheckEndToEndTests {
    typealias Scratch = CommandLineErrorTests.Scratch

    /// `ward user add NAME --role ROLE --pam`: a user without a password to type.
    static func addUser(_ s: Scratch, _ name: String, role: String) throws {
        let added = try s.ward(["user", "add", name, "--role", role, "--pam"])
        #expect(added.status == 0, "\(added.stderr)")
    }

    @Test func anErrorInOneTable_doesNotHideAPluginsTypoInAnother() throws {
        let s = try Scratch(
            site: """
                [session]
                idle-timeout = "5 minutes"

                [[plugin]]
                name = "idle-timer"

                [[plugin]]
                name = "audit-log"
                fsnyc = "always"

                """
        )
        let result = try s.ward(["config", "check"])
        #expect(result.status == 78)
        #expect(
            result.stderr == """
                ward: \(s.site):2: 'idle-timeout' is "5 minutes", not a duration; write it as "30s", "5m", "1h30m" or "500ms".
                ward: \(s.site):9: unknown key 'fsnyc' in plugin 'audit-log'; did you mean 'fsync'?

                """
        )
        #expect(result.stdout.isEmpty)
    }

    @Test func aUserTableNamingNoWardUser_isAWarning_withTheNameItMayHaveMeant() throws {
        let s = try Scratch(
            site:
                "[user.Bob]\nidle-timeout = \"1m\"\n\n[user.nosuch]\nidle-timeout = \"1m\"\n\n[user.bob]\nidle-timeout = \"2m\"\n"
        )
        try Self.addUser(s, "bob", role: "clerk")
        let result = try s.ward(["config", "check"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stderr.contains(
                "ward: \(s.site):1: warning: [user.Bob] names no Ward user of \(s.home), so it applies to nobody. "
                    + "Did you mean [user.bob]? Names are matched exactly, and Ward's are lower case.\n"
            ),
            "\(result.stderr)"
        )
        #expect(
            result.stderr.contains(
                "ward: \(s.site):4: warning: [user.nosuch] names no Ward user of \(s.home), so it applies to nobody. "
                    + "Correct the name ('ward user list' shows the users), or remove the table.\n"
            ),
            "\(result.stderr)"
        )
        #expect(!result.stderr.contains("[user.bob] names"))
        #expect(result.stdout.contains("[user.bob]    # line 7\n"))
    }

    @Test func forUser_showsTheLimitsOfTheirRole_asTheirSessionGetsThem() throws {
        let s = try Scratch(site: "[session]\nidle-timeout = \"10m\"\n\n[role.auditor]\nidle-timeout = \"1m\"\n")
        try Self.addUser(s, "audrey", role: "auditor")
        let result = try s.ward(["config", "check", "--for-user", "audrey"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("# for user audrey, role auditor (from the users of \(s.home))\n"))
        #expect(result.stdout.contains("\n[session]\nidle-timeout = \"1m\"\n"), "\(result.stdout)")

        let nobody = try s.ward(["config", "check", "--for-user", "nobody"])
        #expect(nobody.stdout.contains("# for user nobody, role (any): \(s.home) has no such user"))
        #expect(nobody.stdout.contains("\n[session]\nidle-timeout = \"10m\"\n"), "\(nobody.stdout)")
    }

    /// Run as root, the site file's owner and mode say who may change it (`access(2)` says yes
    /// to root for everything): root's 0644 is fine, and a group that may write it is named,
    /// with the fix.
    @Test func asRoot_theSiteFilesModeSaysWhoMayChangeIt() throws {
        guard geteuid() == 0 else { return }
        let s = try Scratch()
        chmod(s.site, 0o644)
        let fine = try s.ward(["config", "check"])
        #expect(fine.status == 0, "\(fine.stderr)")
        #expect(
            fine.stdout.contains("# site file \(s.site): root's, mode 0644, writable by root alone"),
            "\(fine.stdout)"
        )
        #expect(!fine.stderr.contains(s.site), "\(fine.stderr)")

        chmod(s.site, 0o664)
        let group = try s.ward(["config", "check"])
        #expect(group.status == 0, "\(group.stderr)")
        #expect(
            group.stderr.contains(
                "ward: warning: \(s.site) is root's, mode 0664: the group root may change the site policy; it belongs "
                    + "to root, writable by root alone (chown root: \(s.site); chmod 644 \(s.site))\n"
            ),
            "\(group.stderr)"
        )
    }

    @Test func aPAMServiceTheMachineLacks_isAnError() throws {
        let service = "ward-test-missing-\(getpid())"
        let s = try Scratch(site: "[auth]\nsource = \"pam\"\nservice = \"\(service)\"\n")
        let result = try s.ward(["config", "check"])
        #expect(result.status == 78)
        #expect(
            result.stderr == """
                ward: \(s.site):1: [auth] checks passwords with PAM's service '\(service)', but /etc/pam.d/\(service) \
                does not exist, so every sign-on would be refused. Install it (/usr/share/doc/ward/examples/pam.d/ward \
                is an example), or name a service that exists.

                """
        )
    }

    @Test func json_isOneObjectAProblem_exiting78OnErrors_and0OnWarnings() throws {
        let s = try Scratch()
        try Self.addUser(s, "bob", role: "clerk")
        try "[session]\nbogus = 1\n\n[user.Bob]\nidle-timeout = \"1m\"\n".write(
            toFile: s.site,
            atomically: false,
            encoding: .utf8
        )
        let errors = try s.ward(["config", "check", "--format", "json"])
        #expect(errors.status == 78)
        #expect(errors.stderr.isEmpty, "\(errors.stderr)")
        let objects = try errors.stdout.split(separator: "\n").map {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] ?? [:]
        }
        #expect(objects.count == 2, "\(errors.stdout)")
        #expect(objects.map { $0["line"] as? Int } == [2, 4])
        #expect(objects.map { $0["severity"] as? String } == ["error", "warning"])
        #expect(objects.map { $0["key"] as? String } == ["bogus", "user.Bob"])
        #expect(objects.allSatisfy { $0["file"] as? String == s.site })
        #expect(objects[0]["message"] as? String == "unknown key 'bogus' in [session].")
        #expect(objects[0]["fix"] as? String == "Remove it, or check its spelling in ward-site.toml(5).")
        #expect(
            objects[1]["fix"] as? String
                == "Did you mean [user.bob]? Names are matched exactly, and Ward's are lower case."
        )
        #expect(objects.allSatisfy { Set($0.keys) == ["file", "line", "key", "severity", "message", "fix"] })

        try "[user.Bob]\nidle-timeout = \"1m\"\n".write(toFile: s.site, atomically: false, encoding: .utf8)
        let warnings = try s.ward(["config", "check", "--format", "json"])
        #expect(warnings.status == 0, "\(warnings.stdout)")
        #expect(warnings.stdout.split(separator: "\n").count == 1, "\(warnings.stdout)")
        #expect(!warnings.stdout.contains("[session]"), "nothing but the problems")
    }

    /// A mistyped subcommand is named, with the one it was probably meant to be, whatever
    /// standard input is (here /dev/null, which would otherwise be read as a script).
    @Test func aMistypedSubcommand_isNamed_withDidYouMean_andExits64() throws {
        let s = try Scratch()
        let cases: [([String], String)] = [
            (["sesions"], "unknown subcommand 'sesions'; did you mean 'sessions'?"),
            (["frobnicate"], "unknown subcommand 'frobnicate'; 'ward --help' lists the subcommands."),
            (["--user", "night", "imprt", "x.json"], "unknown subcommand 'imprt'; did you mean 'import'?"),
            (["audit", "shw"], "unknown subcommand 'shw'; did you mean 'show'?"),
            (["--home", "/tmp/x", "confg", "check"], "unknown subcommand 'confg'; did you mean 'config'?"),
        ]
        for (arguments, message) in cases {
            let result = try s.ward(arguments)
            #expect(result.status == 64, "\(arguments)")
            #expect(result.stderr == "ward: \(message)\n", "\(arguments)")
            #expect(result.stdout.isEmpty)
        }
        #expect(!FileManager.default.fileExists(atPath: s.home), "nothing is created for a usage error")
    }

    /// At a terminal as well: the word is a subcommand's, not the shell's "Unexpected argument".
    @Test func aMistypedSubcommand_atATerminal_isNamedToo() throws {
        let t = try TerminalHarness(["sesions"])
        #expect(try t.waitForExit() == 64)
        let screen = try t.screen()
        #expect(screen.contains("ward: unknown subcommand 'sesions'; did you mean 'sessions'?"), "\(screen)")
        #expect(!screen.contains("Usage:"))
    }
}
