import ArgumentParser
import AuditLog
import Glibc
import WardCore

extension Ward {
    /// `ward audit verify|show`: the audit log, for auditors.
    struct Audit: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "audit",
            abstract: "Check or read the audit log.",
            discussion: """
                The audit log is one JSON line per event that matters, each holding the hash of \
                the one before. 'verify' checks the chain; 'show' prints the records as a table.
                """,
            subcommands: [Verify.self, Show.self]
        )

        /// The log to read: `FILE` when given, else the home's `audit.jsonl`.
        static func logPath(file: String?, global: GlobalOptions) -> String {
            file ?? WardHome(path: WardHome.resolvePath(option: global.home)).auditLogPath
        }

        /// `ward: MESSAGE` on standard error, then the exit code.
        static func fail(_ message: String, exit code: Int32) -> ExitCode {
            printError("ward: \(message)")
            return ExitCode(code)
        }

        static func printError(_ text: String) {
            let bytes = Array((Sanitizer.text(text) + "\n").utf8)
            _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
        }
    }
}
