import Foundation
import Glibc
import Testing

/// `scripts/package-deb`, installed on this machine with dpkg as an administrator would: the
/// files and their modes, the account, a fresh install's `ward config check`, `ward demo` as the
/// account, then remove (the data stays) and purge (the site file goes).
///
/// Root only (CI runs as root), and only where no account `ward` exists already: the test makes
/// and removes the real one. The test's own debug binary stands in for the release build
/// (`--binary`), which would take a quarter of an hour to build here.
@Suite(.serialized) struct PackageTests {
    let repository = AuditRotationEndToEndTests.repository
    static let environment = ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8", "HOME": "/root"]

    private func run(_ command: String, input: String? = nil) throws -> (output: String, status: Int32) {
        let output = try TerminalHarness.run(
            "/bin/sh",
            ["-c", command + " 2>&1"],
            environment: Self.environment,
            input: input
        )
        return (output, TerminalHarness.lastStatus)
    }

    private func owner(_ path: String) -> (user: String, mode: mode_t)? {
        var info = stat()
        guard stat(path, &info) == 0, let entry = getpwuid(info.st_uid) else { return nil }
        return (String(cString: entry.pointee.pw_name), info.st_mode & 0o7777)
    }

    @Test func thePackage_installs_runsAsItsAccount_andRemovesAndPurges() throws {
        guard geteuid() == 0 else { return }
        guard getpwnam("ward") == nil, !FileManager.default.fileExists(atPath: "/var/lib/ward") else {
            Issue.record("an account or a home 'ward' exists already: not installing over it")
            return
        }
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("ward-deb-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        defer {
            _ = try? run("dpkg -P ward; userdel ward; groupdel ward; rm -rf /var/lib/ward")
            try? FileManager.default.removeItem(at: output)
        }

        let built = try run(
            "\(repository)/scripts/package-deb --fast --output \(output.path) --binary \(TerminalHarness.wardPath)"
        )
        #expect(built.status == 0, "\(built.output)")
        let deb = built.output.split(separator: "\n").last.map(String.init) ?? ""
        #expect(deb.hasPrefix(output.path + "/ward_0.1.0_") && deb.hasSuffix(".deb"), "\(deb)")

        let fields = try run("dpkg-deb --field \(deb) Depends")
        for package in ["libreadline8", "libsqlite3-0", "libpam0g", "zlib1g", "adduser"] {
            #expect(fields.output.contains(package), "\(fields.output)")
        }
        #expect(try run("dpkg-deb --info \(deb) conffiles").output == "/etc/ward/site.toml\n")
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/lintian") {
            // The debug binary finds the Swift runtime in the toolchain (its RUNPATH); the
            // release build links it in and has none.
            let lint = try run("lintian --tag-display-limit 0 --suppress-tags custom-library-search-path \(deb)")
            let errors = lint.output.split(separator: "\n").filter { $0.hasPrefix("E:") }
            #expect(errors.isEmpty, "\(lint.output)")
        } else {
            Issue.record("lintian is missing: scripts/install-deps installs it")
        }

        let installed = try run("dpkg -i \(deb)")
        #expect(installed.status == 0, "\(installed.output)")

        // The files, where their readers look, with their modes.
        let files: [(String, mode_t)] = [
            ("/usr/bin/ward", 0o755), ("/etc/ward/site.toml", 0o644),
            ("/usr/share/man/man1/ward.1.gz", 0o644), ("/usr/share/man/man5/ward-site.toml.5.gz", 0o644),
            ("/usr/share/man/man5/ward-audit.5.gz", 0o644),
            ("/usr/share/bash-completion/completions/ward", 0o644),
            ("/usr/share/zsh/vendor-completions/_ward", 0o644),
            ("/usr/share/fish/vendor_completions.d/ward.fish", 0o644),
            ("/usr/share/doc/ward/copyright", 0o644), ("/usr/share/doc/ward/changelog.gz", 0o644),
            ("/usr/share/doc/ward/examples/logrotate.d/ward", 0o644),
            ("/usr/share/doc/ward/examples/rsyslog.d/ward.conf", 0o644),
            ("/usr/share/doc/ward/examples/pam.d/ward", 0o644),
            ("/usr/share/doc/ward/examples/sshd_config.d/ward.conf", 0o644),
            ("/usr/share/doc/ward/examples/site.toml", 0o644),
        ]
        for (path, mode) in files {
            let found = owner(path)
            #expect(found?.user == "root" && found?.mode == mode, "\(path): \(String(describing: found))")
        }
        #expect(try run("file -L /usr/bin/ward").output.contains(", stripped"))
        #expect(try !run("grep -r /usr/local/bin /usr/share/doc/ward/examples").output.contains("/usr/local"))
        let site = try String(contentsOfFile: "/etc/ward/site.toml", encoding: .utf8)
        #expect(try String(contentsOfFile: repository + "/packaging/deb/site.toml", encoding: .utf8) == site)

        // The account: a system account with no shell, its home its Ward home, 0700.
        let account = try run("getent passwd ward").output.split(separator: ":").map(String.init)
        #expect(account.count == 7 && Int(account[2]) ?? 1000 < 1000, "\(account)")
        #expect(account.count == 7 && account[5] == "/var/lib/ward" && account[6] == "/usr/sbin/nologin\n")
        #expect(owner("/var/lib/ward")?.user == "ward" && owner("/var/lib/ward")?.mode == 0o700)

        // A fresh install's site file passes the check, as root and as the account.
        let check = try run("ward config check /etc/ward/site.toml")
        #expect(check.status == 0, "\(check.output)")
        let asAccount = try run("cd / && runuser -u ward -- ward config check")
        #expect(asAccount.status == 0, "\(asAccount.output)")
        #expect(asAccount.output.contains("# home /var/lib/ward"), "\(asAccount.output)")

        // The account's sessions: its home is /var/lib/ward without WARD_HOME.
        let demo = try run("cd / && runuser -u ward -- ward demo --patients 5 --no-shell")
        #expect(demo.status == 0, "\(demo.output)")
        #expect(owner("/var/lib/ward/records.sqlite")?.user == "ward")
        #expect(owner("/var/lib/ward/credentials")?.mode == 0o600)
        let batch = try run("cd / && runuser -u ward -- ward -c whoami --user demo --password-fd 0", input: "demo\n")
        #expect(batch.status == 0 && batch.output.contains("demo (clinician)"), "\(batch.output)")
        #expect(try run("runuser -u ward -- ward audit verify").status == 0)

        // Remove keeps the data and the site file; purge removes the site file and says where
        // the data is.
        let removed = try run("dpkg -r ward")
        #expect(removed.status == 0, "\(removed.output)")
        #expect(!FileManager.default.fileExists(atPath: "/usr/bin/ward"))
        #expect(FileManager.default.fileExists(atPath: "/var/lib/ward/audit.jsonl"))
        #expect(FileManager.default.fileExists(atPath: "/etc/ward/site.toml"))
        let purged = try run("dpkg -P ward")
        #expect(purged.status == 0, "\(purged.output)")
        #expect(purged.output.contains("left in /var/lib/ward"), "\(purged.output)")
        #expect(!FileManager.default.fileExists(atPath: "/etc/ward"))
        #expect(FileManager.default.fileExists(atPath: "/var/lib/ward/records.sqlite"))
    }

    /// The site file the package installs sets nothing: with every key uncommented it is still
    /// valid, and its limits are Ward's defaults.
    @Test func theInstalledSiteFile_uncommented_isValid_andHoldsTheDefaults() throws {
        let s = try CommandLineErrorTests.Scratch()
        let empty = try s.ward(["config", "check"])
        #expect(empty.status == 0, "\(empty.stderr)")
        let text = try String(contentsOfFile: repository + "/packaging/deb/site.toml", encoding: .utf8)
        let uncommented = text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.hasPrefix("#") && !line.hasPrefix("# ") && line.count > 1 ? String(line.dropFirst()) : String(line)
        }
        #expect(uncommented.contains("[session]") && uncommented.contains("[[plugin]]"))
        try uncommented.joined(separator: "\n").write(toFile: s.site, atomically: false, encoding: .utf8)
        let full = try s.ward(["config", "check"])
        #expect(full.status == 0, "\(full.stderr)")
        func session(_ out: String) -> String {
            String(
                out.split(separator: "\n[", omittingEmptySubsequences: false).first { $0.hasPrefix("session]") } ?? ""
            )
        }
        #expect(!session(full.stdout).isEmpty && session(full.stdout) == session(empty.stdout), "\(full.stdout)")
    }
}
