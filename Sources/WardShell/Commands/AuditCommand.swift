import WardCore
import WardRecords

/// `audit [FILTERS]` and `audit report MRN`: the auditor's questions, answered in the session
/// they signed on to, without Unix access to the Ward home (HIPAA's accounting of disclosures,
/// 45 CFR 164.528, asked of Ward alone).
///
/// Auditors only. Every reading is on record before its answer is shown (`audit-read`, with the
/// question as typed): a reading that cannot be recorded is not shown. Another role's `audit` is
/// refused and recorded as a denied reading (`refusalEvent`).
struct AuditCommand: ShellCommand {
    static let syntax = CommandSyntax(
        "audit",
        abstract: "Read the audit trail: who did what to which record (auditors only).",
        discussion: """
            Each filter may be given several times: its values are alternatives, and the filters \
            combine. --mrn ignores case and takes the start of an MRN when only one MRN starts so. \
            Times: '2026-11-22', '2026-11-22T09:30-05:00', 'today', 'yesterday', '30d' or '12h' ago. \
            'audit report MRN' accounts for every access to one patient's record, by day.
            """,
        operand: .words(name: "report MRN", help: "'report' and an MRN, for one patient's accounting."),
        options: [
            .init("user", value: "name", help: "Only this user's records. Repeatable."),
            .init("mrn", value: "mrn", help: "Only what was done to this MRN, or the one it starts. Repeatable."),
            .init("action", value: "action", help: "list, open, read, write, close or break-glass. Repeatable."),
            .init("outcome", value: "outcome", help: "ok, denied, failed or started. Repeatable."),
            .init("kind", value: "kind", help: "Only records of this kind (sign-on, access, …). Repeatable."),
            .init("since", value: "time", help: "Only records from this time on."),
            .init("until", value: "time", help: "Only records before this time."),
            .init("count-by", value: "key", help: "Count by user, mrn, action, day or outcome instead."),
        ]
    )

    static let allowedRoles: Set<Role>? = [.auditor]

    private let question: AuditQuestion

    init(_ arguments: ParsedArguments) throws(UsageError) {
        var question = AuditQuestion()
        switch arguments.operands.first {
        case nil:
            break
        case "report":
            guard arguments.operands.count == 2 else {
                throw Self.usageError("'audit report' takes one MRN: audit report MRN.")
            }
            question.reportMRN = arguments.operands[1]
        case let word?:
            throw Self.usageError("'\(word)' is not a question; type 'audit' with filters, or 'audit report MRN'.")
        }
        question.users = arguments.repeated["user"] ?? []
        question.mrns = arguments.repeated["mrn"] ?? []
        question.actions = arguments.repeated["action"] ?? []
        question.outcomes = arguments.repeated["outcome"] ?? []
        question.kinds = arguments.repeated["kind"] ?? []
        question.since = arguments.values["since"]
        question.until = arguments.values["until"]
        question.countBy = arguments.values["count-by"]
        self.question = question
    }

    /// A refused reading is on record with the words typed, first 200 characters: the role may
    /// not read the trail, and what it asked says what it sought.
    static func refusalEvent(_ rest: Substring) -> SessionEvent? {
        let asked = rest.drop(while: CommandSyntax.isBlank).prefix(200)
        return .auditRead(AuditReading(question: String(asked), outcome: .denied))
    }

    func run(in shell: Shell) throws -> CommandResult {
        guard let trail = shell.auditTrail else { throw ShellError("this session has no audit trail to read.") }
        let answer: AuditAnswer
        do {
            answer = try trail.answer(question) { mrn in
                guard let match = try? shell.records().lookUp(mrn: mrn) else { return nil }
                return match.given.isEmpty ? match.family : "\(match.family), \(match.given)"
            }
        } catch {
            // A question the trail could not answer may still quote it (the MRNs an ambiguous
            // prefix starts): on record as a failed reading before the message is shown.
            shell.noteSessionEvent(.auditRead(AuditReading(question: question.description, outcome: .failed)))
            throw error
        }
        // On record before anything of the trail is shown; a refusal withholds it.
        shell.noteSessionEvent(.auditRead(AuditReading(question: question.description, outcome: .ok)))
        // Each warning quotes what was typed as written; the output sanitizes it, once.
        for warning in answer.warnings { shell.write("warning: " + warning, .line) }
        if let title = answer.title { shell.write(title, .line) }
        var table = TextTable(headers: answer.headers, rows: answer.rows, keys: answer.fields?.keys)
        table.fieldRows = answer.fields?.rows
        shell.write(table)
        return .succeeded
    }
}
