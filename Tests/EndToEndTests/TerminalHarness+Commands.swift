import Foundation

extension TerminalHarness {
    /// The environment a `ward` run from the test needs to reach this harness's home and site
    /// file: a second command on the host the harness's session runs on.
    var commandEnvironment: [String: String] {
        ["WARD_HOME": home.path, "WARD_SITE": siteFile.path, "HOME": directory.path, "LANG": "C.UTF-8"]
    }

    /// `ward ARGS` on this harness's home, with `input` on standard input: its exit status and
    /// output.
    func ward(_ arguments: [String], input: String? = nil) throws -> (Int32, String) {
        let out = try TerminalHarness.run(
            TerminalHarness.wardPath,
            arguments,
            environment: commandEnvironment,
            input: input
        )
        return (TerminalHarness.lastStatus, out)
    }
}
