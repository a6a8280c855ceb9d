import ArgumentParser
import AuditLog
import WardCore

extension Ward.Audit {
    /// `ward audit verify [FILE]`: exit 0 with a summary, or 65 naming the first bad record.
    struct Verify: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "verify",
            abstract: "Check the audit log's chain of hashes, across its rotated files.",
            discussion: """
                Exits 0 with a summary when every record is intact. Exits 65 naming the file and \
                the first record that was modified, deleted, inserted, reordered or truncated. A \
                last line torn by a crash is reported as such, not as tampering.

                When rotated files lie beside the log (FILE.1, FILE.2, ... as 'ward audit rotate' \
                and logrotate name them), FILE.N ... FILE.1 and FILE are checked as one chain: a \
                missing, reordered or edited file is tampering. If logrotate's retention deleted \
                the oldest files after you archived and verified them, name the last hash they \
                ended with (printed by verify, and shown in the error) with --start-after.

                A rotation killed part-way leaves files renumbered or named twice with no record \
                missing: verify reports it as an interrupted rotation (exit 65), not a deletion, \
                and --repair puts the files back, writes a repair record saying what it did, then \
                checks the log.

                With --all-hosts, checks every host's chain in the site's database instead, each \
                on its own (records on PostgreSQL; read as the site file's user, which needs SELECT \
                on audit_record). Records the database lacks are named by host and seq: they are \
                in that host's file only, which 'ward audit verify' there checks.
                """
        )

        @OptionGroup var global: GlobalOptions

        @OptionGroup var key: AuditKeyOptions

        @Option(
            name: .customLong("start-after"),
            help: ArgumentHelp(
                "The hash of the last record of rotated files you archived: the oldest file here may continue it.",
                valueName: "hash"
            )
        )
        var startAfter: String?

        @Flag(help: "First put back what an interrupted rotation left (recorded), then check.")
        var repair = false

        @Flag(name: .customLong("all-hosts"), help: "Check every host's chain in the site's database.")
        var allHosts = false

        @Argument(
            help: ArgumentHelp("The log to check; default: audit.jsonl in the Ward home.", valueName: "file"),
            completion: .file()
        )
        var file: String?

        func validate() throws {
            if allHosts, file != nil || repair || startAfter != nil {
                throw ValidationError("--all-hosts reads the site's database: give no file, --repair or --start-after.")
            }
            if let startAfter, !AuditChain.isHash(startAfter) {
                throw ValidationError(
                    "--start-after takes a record's hash: 64 lowercase hex digits, as 'ward audit verify' prints it."
                )
            }
        }

        func run() throws {
            if allHosts { return try verifyAllHosts() }
            let path = try Ward.Audit.logPath(file: file, global: global)
            let chain = try key.chain()
            if repair, let repaired = try Self.repair(path, chain: chain) {
                printText("\(path): repaired: \(repaired).")
            }
            let report = try AuditVerifier(chain: chain).verifySeries(
                path: path,
                startAfter: startAfter
            )
            for warning in report.warnings { printText("warning: \(warning)") }
            if let problem = report.problem {
                // A problem found between files, before any record was counted, has no summary.
                if report.records > 0 { printText("\(path): \(report.summary)") }
                throw CommandLineError.auditLogFailsVerification(path: problem.file ?? path, problem: problem)
            }
            printText("\(path): \(report.summary)")
            if report.files > 1 {
                // What an auditor notes of the files they archive, for --start-after later.
                for file in report.fileSummaries { printText("  \(file.description)") }
            } else if let seq = report.lastSeq, let hash = report.lastHash {
                printText("\(path): last record \(seq), hash \(hash).")
            }
        }

        /// `--all-hosts`: each chain's summary and gaps; the first chain that fails ends it (65).
        private func verifyAllHosts() throws {
            let trail = try SiteAuditTrail.read(global: global)
            let reports = trail.verify(with: try key.chain())
            printText(
                "\(trail.source): \(reports.count) chain\(reports.count == 1 ? "" : "s"), \(trail.rows.count) records."
            )
            var failure: String?
            for report in reports {
                if let first = report.firstSeq, first > 1 {
                    printText("warning: \(report.summary): records 1-\(first - 1) are not in the database.")
                }
                for gap in report.gaps {
                    let span =
                        gap.count == 1
                        ? "record \(gap.lowerBound) is" : "records \(gap.lowerBound)-\(gap.upperBound) are"
                    printText(
                        "warning: host \(report.host), chain \(report.chain.prefix(8)): \(span) not in the database; "
                            + "check the host's own log with 'ward audit verify'."
                    )
                }
                printText("\(report.summary), \(report.problem == nil ? "intact" : "NOT intact").")
                failure = failure ?? report.problem
            }
            if let failure { throw SiteAuditTrailError(problem: failure) }
        }

        /// Rolls back what a killed rotation left, with a `repair` record naming who ran it; nil
        /// when there was nothing to put back.
        static func repair(_ path: String, chain: AuditChain) throws -> InterruptedRotation? {
            guard InterruptedRotation.find(log: path) != nil else { return nil }
            let writer = try AuditWriter(path: path, chain: chain, policy: .always)
            defer { writer.close() }
            writer.administrator = AdministrativeAudit.currentUnixUser()
            let session = AuditRecord.SessionFields(id: SessionID.make(), user: nil, role: nil)
            return try writer.repairInterruptedRotation(session: session, source: nil)
        }
    }
}
