import ArgumentParser
import AuditLog

/// `--key-file`, for the audit subcommands that check or extend a log's hash chain: one
/// spelling and one help text for all of them.
struct AuditKeyOptions: ParsableArguments {
    @Option(
        name: .customLong("key-file"),
        help: ArgumentHelp(
            "The site's audit key, for a log written with one ('rotate' defaults to the site's audit-log key-file).",
            valueName: "file"
        )
    )
    var keyFile: String?

    /// The chain the log is checked or continued with: keyed by `--key-file`, else by the key
    /// at `fallback`, else unkeyed.
    func chain(fallback: String? = nil) throws(AuditError) -> AuditChain {
        guard let path = keyFile ?? fallback else { return AuditChain() }
        return AuditChain(key: try AuditKey.load(path: path))
    }
}
