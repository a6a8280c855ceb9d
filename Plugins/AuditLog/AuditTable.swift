import WardPluginAPI
import WardSupport

/// Audit records as a table's rows for people: one row a record, the event's details last. The
/// shell's `TextTable` lays them out, for `ward audit show` and the shell's `audit` alike.
///
/// ```
/// SEQ  TIME (UTC)                USER  ROLE       SESSION   SOURCE  EVENT    OUTCOME  DETAIL
/// 6    2026-11-22T09:41:07.120Z  demo  clinician  3f9c2a1b  tty     command  -        open
/// 7    2026-11-22T09:41:07.123Z  demo  clinician  3f9c2a1b  tty     access   ok       action=open mrn=MRN-1042
/// ```
///
/// OUTCOME is `AuditRecord.outcome`: the record's `outcome` field, or `denied` for a refused
/// line, sign-on or unlock; `-` for events that have none.
///
/// - Important: Every cell is cleaned of control characters before it is shown, by `row`'s
///   `clean` or by the table that lays the rows out: a log is evidence, and printing it must not
///   let a crafted field drive the auditor's terminal.
public enum AuditTable {
    public static let header = ["SEQ", "TIME (UTC)", "USER", "ROLE", "SESSION", "SOURCE", "EVENT", "OUTCOME", "DETAIL"]

    /// The fields that have a column of their own (the envelope, and `outcome`); every other
    /// field goes to DETAIL.
    static let envelope: Set<String> = [
        "seq", "ver", "ts", "host", "pid", "session", "user", "role", "source", "kind", "outcome", "prev", "hash",
    ]

    /// One record's cells. `clean` is applied to every text that came from the log; a caller
    /// that sanitizes as it shows (the shell's tables) passes the identity, so that nothing is
    /// escaped twice.
    public static func row(_ r: AuditRecord, clean: (String) -> String = clean) -> [String] {
        let o = r.object
        func text(_ key: String) -> String {
            switch o[key] {
            case .string(let s): clean(s)
            case .integer(let n): String(n)
            case .null, nil: "-"
            }
        }
        return [
            String(r.seq), text("ts"), text("user"), text("role"), String(text("session").prefix(8)), text("source"),
            text("kind"), o.string("outcome").map(clean) ?? r.outcome?.rawValue ?? "-", detail(r, clean: clean),
        ]
    }

    /// `open`, `action=read mrn=MRN-1042 section=labs`, `cause=idle`, `away=1m30s`.
    static func detail(_ r: AuditRecord, clean: (String) -> String = clean) -> String {
        var parts: [String] = []
        for (key, value) in r.object.fields where !envelope.contains(key) {
            switch (key, value) {
            case ("command", .string(let s)): parts.append(clean(s))
            case ("away_ms", .integer(let ms)): parts.append("away=\(formatDuration(ms))")
            case (_, .string(let s)): parts.append("\(key)=\(quoteIfNeeded(clean(s)))")
            case (_, .integer(let n)): parts.append("\(key)=\(n)")
            case (_, .null): parts.append("\(key)=-")
            }
        }
        return parts.joined(separator: " ")
    }

    /// Control characters (C0, DEL, C1, bidi) shown as Ward shows them everywhere (`\e`,
    /// `\u009B`, `\u202E`; see `Sanitizer`), so the auditor can tell what the field held.
    public static func clean(_ s: String) -> String {
        Sanitizer.line(s)
    }

    private static func quoteIfNeeded(_ s: String) -> String {
        s.contains(" ") || s.isEmpty ? "\"" + s + "\"" : s
    }

    private static func formatDuration(_ ms: Int64) -> String {
        if ms < 1000 { return "\(ms)ms" }
        let s = ms / 1000
        let (h, m, sec) = (s / 3600, s / 60 % 60, s % 60)
        return (h > 0 ? "\(h)h" : "") + (m > 0 ? "\(m)m" : "") + (sec > 0 || (h == 0 && m == 0) ? "\(sec)s" : "")
    }
}
