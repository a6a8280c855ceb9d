import ArgumentParser
import AuditLog
import Glibc
import WardCore

/// The records of an audit log and its rotated files that answer one question, as `ward audit
/// show` and `ward audit report` ask it: the filters, with every MRN typed resolved as `open`
/// resolves one (whole, ignoring case, or the one MRN it starts), and what the log never names
/// said (`warnings`: standard error for the command line, the shell's output in a session), so
/// that an empty answer is never a typo's.
struct AuditQuery {
    /// The records that match, oldest first, each with its line as written.
    private(set) var records: [(record: AuditRecord, line: ArraySlice<UInt8>)] = []
    /// What the reader should know of the answer: a user or MRN no record names, a rotated file
    /// missing, lines that are not records. As written, quoting what was typed: the edge that
    /// shows them (standard error, the shell's output) sanitizes them, once, as it does every
    /// message; escaped here too, a backslash would show doubled.
    private(set) var warnings: [String] = []

    /// Reads `path`'s series once. `typedMRNs` are resolved against the MRNs the log names.
    ///
    /// - Throws: a usage error (exit 64) for an MRN that several MRNs start with, naming them;
    ///   file errors as `FileSecurity` and the reader throw them.
    init(path: String, filter: AuditFilter, typedMRNs: [String]) throws {
        let prefixes = typedMRNs.map(AuditFilter.folded)
        var withoutMRNs = filter
        withoutMRNs.mrns = nil
        var knownUsers = Set<String>()
        /// The MRNs the log names that start as one typed, folded, each as the log spells it.
        var knownMRNs: [String: String] = [:]
        var kept: [(record: AuditRecord, line: ArraySlice<UInt8>)] = []
        // Lines that cannot match are passed over unparsed: a byte search for the MRNs typed,
        // and for the users asked about, which also says which users the log names at all.
        let mrnKeys = [Array(#""mrn":""#.utf8), Array(#""chart":""#.utf8)]
        let mrnPrefixes = prefixes.map { Array($0.utf8) }
        let askedUsers = (filter.users ?? []).sorted()
        let userNeedles = askedUsers.map { user in
            [Array(#""user":"\#(user)""#.utf8), Array(#""target":"\#(user)""#.utf8)]
        }
        let keeping: ((UnsafeRawBufferPointer) -> Bool)? =
            mrnPrefixes.isEmpty && askedUsers.isEmpty
            ? nil
            : { line in
                for (user, needles) in zip(askedUsers, userNeedles) where !knownUsers.contains(user) {
                    if needles.contains(where: { AuditLineSearch.contains(line, $0) }) { knownUsers.insert(user) }
                }
                if !mrnPrefixes.isEmpty, !AuditLineSearch.hasField(line, keys: mrnKeys, startingWith: mrnPrefixes) {
                    return false
                }
                return askedUsers.isEmpty || userNeedles.contains { $0.contains { AuditLineSearch.contains(line, $0) } }
            }
        let series = AuditSeries(log: path)
        warnings += series.warnings
        for file in series.files {
            // Between logrotate's rename and the next record, the current file is not there yet.
            if file == path, series.files.count > 1, access(file, F_OK) != 0 { continue }
            try FileSecurity.checkIfPresent(atPath: file)
            let log = try AuditLogFile.read(path: file, keeping: keeping)
            Self.select(log.records, prefixes: prefixes, filter: withoutMRNs, knownMRNs: &knownMRNs, into: &kept)
            if log.unreadable > 0 {
                warnings.append(
                    "\(file): \(log.unreadable) line\(log.unreadable == 1 ? " is" : "s are") not records; run 'ward audit verify'."
                )
            }
        }
        try resolve(
            kept,
            typedMRNs: typedMRNs,
            knownMRNs: knownMRNs,
            unnamedUsers: (filter.users ?? []).filter { !knownUsers.contains($0) },
            source: path
        )
    }

    /// The records of every host's chain in the site's database (`--all-hosts`), each line as
    /// its host wrote it, asked the same question. `source` names them in warnings.
    init(lines: [ArraySlice<UInt8>], source: String, filter: AuditFilter, typedMRNs: [String]) throws {
        let prefixes = typedMRNs.map(AuditFilter.folded)
        var withoutMRNs = filter
        withoutMRNs.mrns = nil
        var knownMRNs: [String: String] = [:]
        var kept: [(record: AuditRecord, line: ArraySlice<UInt8>)] = []
        var unreadable = 0
        var items: [(record: AuditRecord, line: ArraySlice<UInt8>)] = []
        var knownUsers = Set<String>()
        for (index, line) in lines.enumerated() {
            guard let record = AuditRecord(line: index + 1, bytes: line) else {
                unreadable += 1
                continue
            }
            if let user = record.user { knownUsers.insert(user) }
            if let target = record.object.string("target") { knownUsers.insert(target) }
            items.append((record, line))
        }
        Self.select(items, prefixes: prefixes, filter: withoutMRNs, knownMRNs: &knownMRNs, into: &kept)
        if unreadable > 0 {
            warnings.append("\(source): \(unreadable) rows are not records; run 'ward audit verify --all-hosts'.")
        }
        try resolve(
            kept,
            typedMRNs: typedMRNs,
            knownMRNs: knownMRNs,
            unnamedUsers: (filter.users ?? []).filter { !knownUsers.contains($0) },
            source: source
        )
    }

    /// Keeps the records of `items` that `filter` (without its MRNs) matches and whose MRN starts
    /// as one of `prefixes` typed, when any was; notes each MRN so started, as the log spells it.
    private static func select(
        _ items: [(record: AuditRecord, line: ArraySlice<UInt8>)],
        prefixes: [String],
        filter: AuditFilter,
        knownMRNs: inout [String: String],
        into kept: inout [(record: AuditRecord, line: ArraySlice<UInt8>)]
    ) {
        for item in items {
            let record = item.record
            let mrn = record.mrn.map(AuditFilter.folded)
            if let mrn, prefixes.contains(where: mrn.hasPrefix), knownMRNs[mrn] == nil {
                knownMRNs[mrn] = record.mrn
            }
            guard filter.matches(record) else { continue }
            if !prefixes.isEmpty, !(mrn.map { m in prefixes.contains(where: m.hasPrefix) } ?? false) { continue }
            kept.append(item)
        }
    }

    /// Resolves each MRN typed against the MRNs the records name, keeps the records of those,
    /// and says what no record names.
    ///
    /// - Throws: a usage error for an MRN that several MRNs start with, naming them.
    private mutating func resolve(
        _ candidates: [(record: AuditRecord, line: ArraySlice<UInt8>)],
        typedMRNs: [String],
        knownMRNs: [String: String],
        unnamedUsers: [String],
        source path: String
    ) throws {
        var kept = candidates
        for user in unnamedUsers {
            warnings.append("no record of \(path) names the user '\(user)'.")
        }
        var mrns = Set<String>()
        for typed in typedMRNs {
            switch AuditFilter.resolve(typed, among: Set(knownMRNs.keys)) {
            case .mrn(let mrn): mrns.insert(mrn)
            case .unknown:
                warnings.append(
                    "no record of \(path) names an MRN that is or starts with '\(typed)'."
                )
            case .ambiguous(let candidates):
                let listed = candidates.prefix(10).map { knownMRNs[$0] ?? $0 }.joined(separator: ", ")
                let more = candidates.count > 10 ? " and \(candidates.count - 10) more" : ""
                throw ValidationError(
                    "several MRNs in the log start with '\(typed)': \(listed)\(more). Type more of the MRN."
                )
            }
        }
        if !typedMRNs.isEmpty {
            let resolved = AuditFilter(mrns: mrns)
            kept = kept.filter { resolved.matches($0.record) }
        }
        records = kept
    }
}
