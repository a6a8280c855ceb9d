import Foundation
import Testing

/// A PAM service named `ward` in a temporary directory, for the real `ward` to load through
/// pam_wrapper (Debian `libpam-wrapper`): `LD_PRELOAD=libpam_wrapper.so` makes the real libpam
/// read its services from `PAM_WRAPPER_SERVICE_DIR` instead of /etc/pam.d, and pam_matrix checks
/// passwords against a file of `user:password:service` lines instead of the system's.
///
/// Nothing is faked on Ward's side: the binary links the system's libpam and runs its
/// conversation; only the service file and the password database are the test's.
final class PAMWrapper {
    static let library = "/usr/lib/x86_64-linux-gnu/libpam_wrapper.so"
    static let matrix = "/usr/lib/x86_64-linux-gnu/pam_wrapper/pam_matrix.so"

    let directory: URL
    var services: URL { directory.appendingPathComponent("services") }
    var passdb: String { directory.appendingPathComponent("passdb").path }

    /// - Parameters:
    ///   - passdb: pam_matrix's lines, `user:password:service` (a user whose service is not
    ///     `ward` passes `pam_authenticate` and is refused by `pam_acct_mgmt`).
    ///   - auth: pam_matrix's options for the auth stage (`verbose`: a message after each check;
    ///     `echo`: ask with a visible prompt).
    ///   - authFirst: lines of the auth stage before pam_matrix's (pam_faildelay).
    ///   - accountFirst: lines of the account stage before pam_matrix's.
    ///   - service: The `ward` service's whole text instead (contrib/pam.d/ward): its
    ///     `@include common-auth` and `common-account` are then pam_matrix's stages, in files of
    ///     this directory (pam_wrapper redirects the service file only; libpam would look for an
    ///     include in /etc/pam.d, so the include lines are made to name these files).
    init(
        passdb: [String],
        auth: String = "",
        authFirst: [String] = [],
        accountFirst: [String] = [],
        service: String? = nil
    ) throws {
        for file in [Self.library, Self.matrix] where !FileManager.default.isReadableFile(atPath: file) {
            Issue.record("\(file) is missing: install the Debian package 'libpam-wrapper'")
            throw TerminalHarness.HarnessError.failed("no pam_wrapper")
        }
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("ward-pam-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: services, withIntermediateDirectories: true)
        try (passdb.joined(separator: "\n") + "\n").write(toFile: self.passdb, atomically: true, encoding: .utf8)
        let matrix = "\(Self.matrix) passdb=\(self.passdb)"
        let ward = authFirst + ["auth required \(matrix) \(auth)"] + accountFirst + ["account required \(matrix)"]
        var files = ["ward": ward.joined(separator: "\n") + "\n"]
        if let service {
            files = [
                "ward": service.replacingOccurrences(of: "@include common-", with: "@include \(services.path)/common-"),
                "common-auth": "auth required \(matrix)\n",
                "common-account": "account required \(matrix)\n",
            ]
        }
        for (name, text) in files {
            try text.write(to: services.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        // PAM's fallback for an unknown service; pam_wrapper complains on standard error without it.
        try "auth required pam_deny.so\naccount required pam_deny.so\n".write(
            to: services.appendingPathComponent("other"),
            atomically: true,
            encoding: .utf8
        )
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    /// What `ward` needs in its environment to use this service.
    var environment: [String: String] {
        ["LD_PRELOAD": Self.library, "PAM_WRAPPER": "1", "PAM_WRAPPER_SERVICE_DIR": services.path]
    }

    /// A site file that checks passwords with PAM's `ward` service, and `more` after it.
    static func site(_ more: String = "plugin = []\n") -> String {
        more + "\n[auth]\nsource = \"pam\"\nservice = \"ward\"\n" + TerminalHarness.unguarded
    }
}
