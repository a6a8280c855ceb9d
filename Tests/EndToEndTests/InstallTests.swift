import Foundation
import Glibc
import Testing

/// `scripts/install` into a temporary prefix puts each file where its reader looks,
/// with the mode it needs. The test's own debug binary stands in for the release build
/// (`--binary`), which would take minutes to build here; it is stripped the same way.
@Suite struct InstallTests {
    let prefix = FileManager.default.temporaryDirectory.appendingPathComponent("ward-install-\(UUID().uuidString)").path
    let repository = AuditRotationEndToEndTests.repository

    private func mode(_ path: String) -> mode_t? {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mode & 0o7777 : nil
    }

    private func size(_ path: String) -> Int {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_size) : -1
    }

    private func contents(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

    private func install(_ arguments: [String]) throws -> (output: String, status: Int32) {
        let output = try TerminalHarness.run(
            repository + "/scripts/install",
            arguments,
            environment: ["PATH": "/usr/bin:/bin", "HOME": NSTemporaryDirectory(), "LANG": "C.UTF-8"]
        )
        return (output, TerminalHarness.lastStatus)
    }

    @Test func installsEveryFile_whereItsReaderLooks() throws {
        defer { try? FileManager.default.removeItem(atPath: prefix) }
        let result = try install(["--prefix", prefix, "--binary", TerminalHarness.wardPath])
        #expect(result.status == 0)
        #expect(result.output.contains("MB before stripping, "))

        // The binary: executable, stripped (smaller than the build's), and working.
        let ward = prefix + "/bin/ward"
        #expect(mode(ward) == 0o755)
        #expect(size(ward) > 0 && size(ward) < size(TerminalHarness.wardPath))
        let help = try TerminalHarness.run(ward, ["audit", "rotate", "--help"], environment: ["PATH": "/usr/bin:/bin"])
        #expect(TerminalHarness.lastStatus == 0)
        #expect(help.contains("--renamed"))

        // Man pages, completions: the repository's files, unchanged, 0644.
        let copies = [
            ("man/ward.1", "share/man/man1/ward.1"),
            ("man/ward-site.toml.5", "share/man/man5/ward-site.toml.5"),
            ("man/ward-audit.5", "share/man/man5/ward-audit.5"),
            ("completions/ward.bash", "share/bash-completion/completions/ward"),
            ("completions/_ward", "share/zsh/site-functions/_ward"),
            ("completions/ward.fish", "share/fish/vendor_completions.d/ward.fish"),
        ]
        for (source, target) in copies {
            let installed = prefix + "/" + target
            #expect(mode(installed) == 0o644, "\(target)")
            #expect(
                contents(installed) != nil && contents(installed) == contents(repository + "/" + source),
                "\(target)"
            )
        }

        // Every example in contrib/, naming the installed binary instead of /usr/local's.
        let examples = try FileManager.default.subpathsOfDirectory(atPath: repository + "/contrib").filter {
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: repository + "/contrib/" + $0, isDirectory: &isDirectory)
                && !isDirectory.boolValue
        }
        #expect(examples.contains("logrotate.d/ward"))
        #expect(examples.contains("site.toml"))
        #expect(examples.contains("sshd_config.d/ward.conf"))
        #expect(examples.contains("rsyslog.d/ward.conf"))
        for example in examples {
            let source = try String(contentsOfFile: repository + "/contrib/" + example, encoding: .utf8)
            let installed = prefix + "/share/doc/ward/" + example
            #expect(mode(installed) == 0o644, "\(example)")
            let expected = source.replacingOccurrences(of: "/usr/local/bin/ward", with: ward)
            #expect((try? String(contentsOfFile: installed, encoding: .utf8)) == expected, "\(example)")
        }
        let logrotate = try String(contentsOfFile: prefix + "/share/doc/ward/logrotate.d/ward", encoding: .utf8)
        #expect(logrotate.contains("\(ward) audit rotate --renamed"))
        // The PAM service for [auth] source = "pam": the system's stacks, one password asked.
        #expect(examples.contains("pam.d/ward"))
        let service = try String(contentsOfFile: prefix + "/share/doc/ward/pam.d/ward", encoding: .utf8)
        let stack = service.split(separator: "\n").filter { !$0.hasPrefix("#") && !$0.isEmpty }
        #expect(stack == ["@include common-auth", "@include common-account"])

        // The sshd block forces the installed ward.
        let sshd = try String(contentsOfFile: prefix + "/share/doc/ward/sshd_config.d/ward.conf", encoding: .utf8)
        #expect(sshd.contains("Match User ward\n    ForceCommand \(ward)\n"))

        // The example site file is one Ward accepts. Its audit log's directory, /var/log/ward,
        // is the deployment's to make: without it the check says so (78), and nothing else.
        let check = try TerminalHarness.runToEnd(
            ["config", "check", "--home", prefix + "/home", prefix + "/share/doc/ward/site.toml"],
            environment: ["PATH": "/usr/bin:/bin", "HOME": prefix],
            capturingIn: URL(fileURLWithPath: prefix)
        )
        let problems = String(decoding: check.err, as: UTF8.self)
        if access("/var/log/ward", F_OK) == 0 {
            #expect(check.status == 0, "\(problems)")
        } else {
            #expect(check.status == 78)
            #expect(problems == "ward: /var/log/ward, the audit log's directory, does not exist\n")
        }

        // `man ward` finds the page through PATH, as man-db looks beside each bin directory.
        guard access("/usr/bin/man", X_OK) == 0 else {
            Issue.record("man is not installed: install the Debian package 'man-db'")
            return
        }
        let page = try TerminalHarness.run(
            "/usr/bin/man",
            ["-w", "ward"],
            environment: ["PATH": prefix + "/bin:/usr/bin:/bin", "HOME": NSTemporaryDirectory()]
        )
        #expect(page.trimmingCharacters(in: .whitespacesAndNewlines) == prefix + "/share/man/man1/ward.1")

        // The bash completion loads in a new bash and completes `ward`.
        let complete = try TerminalHarness.run(
            "/bin/bash",
            [
                "--norc", "--noprofile", "-c", "source \"$1\" && complete -p ward", "bash",
                prefix + "/share/bash-completion/completions/ward",
            ],
            environment: ["PATH": "/usr/bin:/bin"]
        )
        #expect(TerminalHarness.lastStatus == 0)
        #expect(complete.contains(" ward"))
    }

    @Test func anUnknownOption_isAUsageError_andInstallsNothing() throws {
        let result = try install(["--prefix", prefix, "--destination", "/"])
        #expect(result.status == 64)
        #expect(access(prefix, F_OK) != 0)
    }

    @Test func aRelativePrefix_isRefused() throws {
        #expect(try install(["--prefix", "relative/dir", "--binary", TerminalHarness.wardPath]).status == 64)
    }
}
