import ArgumentParser
import AuditLog
import WardCore

extension Ward.Audit {
    /// `ward audit verify [FILE]`: exit 0 with a summary, or 65 naming the first bad record.
    struct Verify: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check the audit log's chain of hashes.",
            discussion: """
                Exits 0 with a summary when every record is intact. Exits 65 naming the first \
                record that was modified, deleted, inserted, reordered or truncated. A last line \
                torn by a crash is reported as such, not as tampering.
                """
        )

        @OptionGroup var global: GlobalOptions

        @Option(
            name: .customLong("key-file"),
            help: ArgumentHelp("The site's audit key, for a log written with one.", valueName: "file")
        )
        var keyFile: String?

        @Argument(help: ArgumentHelp("The log to check; default: audit.jsonl in the Ward home.", valueName: "file"))
        var file: String?

        func run() throws {
            let path = try Ward.Audit.logPath(file: file, global: global)
            let chain = try keyFile.map { path throws(AuditError) in AuditChain(key: try AuditKey.load(path: path)) }
            let report = try AuditVerifier(chain: chain ?? AuditChain()).verify(path: path)
            for warning in report.warnings { printText("warning: \(warning)") }
            if let problem = report.problem {
                printText("\(path): \(report.summary)")
                throw CommandLineError.auditLogFailsVerification(path: path, problem: problem)
            }
            printText("\(path): \(report.summary)")
        }
    }
}
