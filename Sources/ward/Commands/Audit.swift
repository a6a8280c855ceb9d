import ArgumentParser
import AuditLog
import BuiltInPlugins
import WardCore

extension Ward {
    /// `ward audit verify|show|rotate`: the audit log, for auditors and for logrotate.
    struct Audit: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "audit",
            abstract: "Check, read or rotate the audit log.",
            discussion: """
                The audit log is one JSON line per event that matters, each holding the hash of \
                the one before. 'verify' checks the chain (of every rotated file too); 'show' \
                prints the records as a table; 'rotate' starts a new file chained to the old one.
                """,
            subcommands: [Verify.self, Show.self, Report.self, Rotate.self]
        )

        /// The log to read: `FILE` when given, else the site's `audit-log` `path`, else the
        /// home's `audit.jsonl`; checked first, with its head file, as every Ward file is.
        ///
        /// A log that others can read tells them who saw which patient, and one they can write
        /// is no evidence: it is refused (exit 78, with the `chmod` that fixes it), as the
        /// records and the credentials are. Without `FILE` the home is checked as well; a missing
        /// home or log is no input.
        static func logPath(file: String?, global: GlobalOptions) throws -> String {
            let sitePath = file == nil ? try siteLogPath(global) : nil
            let path: String
            if let file {
                path = file
            } else {
                let home = try WardHome.open(option: global.home, create: false)
                path = sitePath ?? home.auditLogPath
            }
            for file in WardHome.auditFiles(log: path) { try FileSecurity.checkIfPresent(atPath: file) }
            return path
        }

        /// The `path` of the site's `[[plugin]] name = "audit-log"`, nil when it names none.
        private static func siteLogPath(_ global: GlobalOptions) throws -> String? {
            let policy = try SitePolicy.load(siteOption: global.site, plugins: pluginRegistry)
            guard let settings = policy.plugins.first(where: { $0.name == AuditLog.name }) else { return nil }
            return try settings.string("path")
        }

        /// The `key-file` of the site's audit log when `path` is that log (its `path`, or the
        /// home's `audit.jsonl` when it names none); nil otherwise. `rotate` writes a record, and
        /// it must be keyed as the log's other records are.
        static func siteKeyFile(forLog path: String, global: GlobalOptions) throws -> String? {
            let policy = try SitePolicy.load(siteOption: global.site, plugins: pluginRegistry)
            guard let settings = policy.plugins.first(where: { $0.name == AuditLog.name }) else { return nil }
            let sitePath = try settings.string("path")
            if let sitePath, sitePath != path { return nil }
            if sitePath == nil, let home = try? WardHome.open(option: global.home, create: false),
                home.auditLogPath != path
            {
                return nil
            }
            return try settings.string("key-file")
        }

        /// Records that the trail was read (`audit-read`, the arguments as given) when the log
        /// can be written: an auditor with read access only still gets the answer, and the
        /// administrators who can write it leave a record of each reading.
        static func recordReading(global: GlobalOptions) {
            guard let home = try? WardHome.open(option: global.home, create: false),
                let audit = try? AdministrativeAudit.open(global: global, home: home)
            else { return }
            let question = CommandLine.arguments.dropFirst().joined(separator: " ")
            try? audit.record(.auditRead(question: question, by: audit.unixUser))
        }
    }
}
