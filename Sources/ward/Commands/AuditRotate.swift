import ArgumentParser
import AuditLog
import Glibc
import WardCore

extension Ward.Audit {
    /// `ward audit rotate [FILE]`: closes the current log file and starts a new one chained to it.
    ///
    /// A command rather than logrotate's renaming alone because the new file must begin with a
    /// record that chains to the old one's end, written under the log's lock, or the series can
    /// no longer be told apart from a log that lost its older part.
    struct Rotate: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rotate",
            abstract: "Start a new audit log file, chained to the one before.",
            discussion: """
                Renames the log FILE to FILE.1 (FILE.1 to FILE.2, and so on, as logrotate numbers \
                them) and starts a new FILE. Its first record, of kind 'rotate', names FILE.1, \
                carries its record count and chains to its last record; the head file moves with \
                it. Sessions that are running keep writing, to the new file. 'ward audit verify' \
                then checks FILE.N ... FILE.1 and FILE as one chain.

                With --renamed, logrotate has renamed the log already: only the new file is \
                started (nothing if a session was first). Run it from logrotate's postrotate \
                script, as share/doc/ward/logrotate.d/ward does. Do not let logrotate compress \
                the files: 'ward audit verify' reads them as they are.
                """
        )

        @OptionGroup var global: GlobalOptions

        @OptionGroup var key: AuditKeyOptions

        @Flag(help: "The log was renamed to FILE.1 already (by logrotate): only start the new file.")
        var renamed = false

        @Argument(
            help: ArgumentHelp(
                "The log to rotate; default: the site's audit log, else audit.jsonl in the Ward home.",
                valueName: "file"
            )
        )
        var file: String?

        func run() throws {
            let path = try Ward.Audit.logPath(file: file, global: global)
            // Nothing is created for a log that does not exist: there is nothing to rotate.
            if access(path, F_OK) != 0, access(AuditHead.path(forLog: path), F_OK) != 0 {
                throw AuditError.file(.notFound(path: path))
            }
            let fallback = key.keyFile == nil ? try Ward.Audit.siteKeyFile(forLog: path, global: global) : nil
            let writer = try AuditWriter(path: path, chain: try key.chain(fallback: fallback), policy: .always)
            defer { writer.close() }
            writer.administrator = AdministrativeAudit.currentUnixUser()
            let session = AuditRecord.SessionFields(id: SessionID.make(), user: nil, role: nil)
            let rotation =
                renamed
                ? try writer.continueAfterRename(session: session, source: nil)
                : try writer.rotate(session: session, source: nil)
            guard let rotation else {
                printText(
                    renamed
                        ? "\(path): it has records already; nothing to start."
                        : "\(path): it holds no record; nothing to rotate."
                )
                return
            }
            switch rotation.cause {
            case .command, .renamed:
                let name = rotation.previousFile ?? "?"
                let count = rotation.previousRecords ?? 0
                printText(
                    "\(path): \(name) holds \(count) record\(count == 1 ? "" : "s") "
                        + "(to seq \(rotation.previous.seq)); the new file begins with record \(rotation.head.seq) (rotate)."
                )
            case .missing:
                StandardError.report(
                    "\(path): the log was gone, and \(AuditRotation.rotatedPath(path, 1)) does not end with record "
                        + "\(rotation.previous.seq), which its head names. The new file continues the chain, and "
                        + "'ward audit verify' reports the missing file until it is back as \(AuditRotation.rotatedPath(path, 1))."
                )
                throw CommandLineError.reported(.dataError)
            }
        }
    }
}
