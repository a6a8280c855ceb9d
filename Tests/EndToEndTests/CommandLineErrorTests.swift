import Foundation
import Glibc
import Testing

/// The executable's one error path (`Ward.main`'s catch): exactly what reaches standard error,
/// and the exit status, for each kind of failure the command line ends with.
@Suite struct CommandLineErrorTests {
    /// A scratch directory: a home that does not exist yet, a site file and a password file.
    final class Scratch {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ward-cli-\(UUID().uuidString)")
        var home: String { directory.appendingPathComponent("home").path }
        var site: String { directory.appendingPathComponent("site.toml").path }
        var passwordFile: String { directory.appendingPathComponent("password").path }
        var environment: [String: String] {
            ["WARD_HOME": home, "WARD_SITE": site, "HOME": directory.path, "LANG": "C.UTF-8", "PATH": "/usr/bin:/bin"]
        }

        init(site: String = "") throws {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            chmod(directory.path, 0o700)
            try site.write(toFile: self.site, atomically: false, encoding: .utf8)
            try "demo\n".write(toFile: passwordFile, atomically: false, encoding: .utf8)
            chmod(self.site, 0o600)
            chmod(passwordFile, 0o600)
        }

        deinit { try? FileManager.default.removeItem(at: directory) }

        /// Runs `ward ARGS` to its end with standard input from /dev/null (so a script, `-`).
        func ward(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
            let run = try TerminalHarness.runToEnd(arguments, environment: environment, capturingIn: directory)
            return (run.status, String(decoding: run.out, as: UTF8.self), String(decoding: run.err, as: UTF8.self))
        }
    }

    /// Two problems in one site file: each on its own `ward: ` line, in line order.
    static let brokenSite = "[session]\nidle-timeout = \"5 minutes\"\nbogus = 1\n"

    static func brokenSiteLines(_ file: String) -> String {
        """
        ward: \(file):2: 'idle-timeout' is "5 minutes", not a duration; write it as "30s", "5m", "1h30m" or "500ms".
        ward: \(file):3: unknown key 'bogus' in [session].

        """
    }

    @Test func configCheck_printsEveryProblemAsAWardLine_andExits78() throws {
        let s = try Scratch(site: Self.brokenSite)
        let result = try s.ward(["config", "check"])
        #expect(result.status == 78)
        #expect(result.stderr == Self.brokenSiteLines(s.site))
        #expect(result.stdout.isEmpty)
    }

    @Test func aBatchUnderABrokenSiteFile_stopsBeforeSignOn_withTheSameLines_andExits78() throws {
        let s = try Scratch(site: Self.brokenSite)
        let result = try s.ward(["--batch", "-", "--user", "demo", "--password-file", s.passwordFile])
        #expect(result.status == 78)
        #expect(result.stderr == Self.brokenSiteLines(s.site))
    }

    @Test func aBatchWithoutUser_isAUsageError_withTheShellsUsage_andExits64() throws {
        let s = try Scratch()
        let result = try s.ward(["--batch", "-", "--password-file", s.passwordFile])
        #expect(result.status == 64)
        #expect(
            result.stderr == """
                Error: --batch needs --user NAME: a script signs on as someone, like a person.
                Usage: ward shell [--home <dir>] [--site <file>] [--user <name>] [--batch <file>] [-c <command>] \
                [--password-fd <n>] [--password-file <path>] [--format <text|json|csv>] [--on-error <stop|continue>]
                  See 'ward shell --help' for more information.

                """
        )
        #expect(!FileManager.default.fileExists(atPath: s.home), "nothing is created for a usage error")
    }

    @Test func aHomeWithoutUsers_saysHowToAddOne_andExits66() throws {
        let s = try Scratch()
        let result = try s.ward(["--batch", "-", "--user", "demo", "--password-file", s.passwordFile])
        #expect(result.status == 66)
        #expect(
            result.stderr
                == "ward: no users in \(s.home) yet. Add one with 'ward user add NAME', or try 'ward demo'.\n"
        )
    }

    @Test func aScriptThatIsADirectory_exits66_namingIt() throws {
        let s = try Scratch()
        _ = try s.ward(["demo", "--patients", "1", "--no-shell"])
        let result = try s.ward(["--batch", s.directory.path, "--user", "demo", "--password-file", s.passwordFile])
        #expect(result.status == 66)
        #expect(result.stderr == "ward: \(s.directory.path) is a directory; give the script's file.\n")
    }

    @Test func aLibraryError_isOneSanitizedWardLine_withItsStatus() throws {
        let s = try Scratch()
        let none = try s.ward(["user", "list"])
        #expect(none.status == 66)
        #expect(
            none.stderr
                == "ward: No users yet: \(s.home)/credentials does not exist. Add the first with 'ward user add NAME --role clinician'.\n"
        )
        _ = try s.ward(["demo", "--patients", "1", "--no-shell"])
        let hostile = try s.ward(["user", "remove", "no\u{1B}[2Jbody"])
        #expect(hostile.status == 1)
        #expect(hostile.stderr == #"ward: No user named 'no\e[2Jbody'. 'ward user list' shows who there is."# + "\n")
    }

    @Test func helpAndVersion_goToStandardOutput_andExit0() throws {
        let s = try Scratch()
        let version = try s.ward(["--version"])
        #expect(version.status == 0 && version.stdout == "0.1.0\n" && version.stderr.isEmpty)
        let help = try s.ward(["config", "check", "--help"])
        #expect(help.status == 0 && help.stdout.hasPrefix("OVERVIEW: ") && help.stderr.isEmpty)
    }
}
