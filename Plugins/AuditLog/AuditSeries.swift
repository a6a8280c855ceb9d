import Glibc
import WardPluginAPI
import WardSupport

/// The files of a rotated audit log, oldest first (`FILE.N … FILE.1, FILE`), checked as one
/// chain.
///
/// Each file after the first opens with a `rotate` record (`AuditRotation`) that chains to the
/// last record of the file before it. Checking the series finds, besides everything a single
/// file's check finds (`AuditVerifier`):
///
/// | found                                                                 | reported  |
/// | --------------------------------------------------------------------- | --------- |
/// | a gap in the numbers (`FILE.1` and `FILE.3`, no `FILE.2`)             | deleted   |
/// | a gap the chain crosses, or `FILE.1` another name of `FILE`           | interrupted rotation |
/// | the oldest file continues a file that is not here                     | deleted   |
/// | a file continues a file other than the one before it here             | reordered |
/// | a file continues a file that ended later than the one before it here  | deleted   |
/// | the file before ends early (its last records cut)                     | truncated |
/// | the file before has records after the one the next file continues     | inserted  |
/// | a file starts a new chain (record 1) with older files beside it       | deleted   |
/// | a `rotate` record that says the older file was missing when it began  | deleted   |
///
/// Logrotate's retention (`rotate N`) deletes the oldest file; the oldest one kept then begins
/// by continuing a file that is not here, which is reported like any other missing file. An
/// auditor who archived (and verified) the older files names the last hash they ended with:
/// `startAfter`, `ward audit verify --start-after HASH`. Nothing else makes a missing start
/// acceptable.
public struct AuditSeries: Sendable {
    /// The current log.
    public let path: String
    /// Each file that is present, oldest first, the current log last.
    public let files: [String]
    /// Numbers missing between `FILE.1` and the highest `FILE.n`.
    public let gaps: [Int]
    /// Notes on what discovery skipped.
    public let warnings: [String]

    /// The series of the log at `path`: the `FILE.n` beside it, in the order logrotate numbers
    /// them. A `FILE.1` that is a second name of `FILE` (a rotation interrupted between its
    /// link and its rename) is left out, with a warning.
    public init(log path: String) {
        self.path = path
        var numbers = AuditRotation.rotatedNumbers(path)
        var warnings: [String] = []
        var mine = stat()
        var first = stat()
        if numbers.first == 1, lstat(path, &mine) == 0, lstat(AuditRotation.rotatedPath(path, 1), &first) == 0,
            mine.st_dev == first.st_dev, mine.st_ino == first.st_ino
        {
            numbers.removeFirst()
            warnings.append(
                "\(AuditRotation.rotatedPath(path, 1)) is another name of \(path): a rotation was interrupted; "
                    + "'ward audit rotate' removes it"
            )
        }
        let highest = numbers.last ?? 0
        self.gaps = (1..<max(highest, 1)).filter { !numbers.contains($0) }
        self.files = numbers.reversed().map { AuditRotation.rotatedPath(path, $0) } + [path]
        self.warnings = warnings
    }
}

extension AuditVerifier {
    /// Checks the log at `path` and the rotated files beside it as one chain, and the head file
    /// against the last. For a log never rotated, the same as `verify(path:)`.
    ///
    /// - Parameter startAfter: The hash of the last record of files the auditor archived: the
    ///   oldest file present may continue it. Without it, the series must begin at record 1.
    public func verifySeries(path: String, startAfter: String? = nil) throws(AuditError) -> AuditReport {
        let series = AuditSeries(log: path)
        var report = AuditReport(algorithm: chain.algorithm)
        report.files = series.files.count
        report.warnings = series.warnings
        let many = series.files.count > 1

        // What a killed rotation left is told apart from a deleted file: the chain crosses its gap.
        // The files are checked in their order all the same, so a file deleted as well is still
        // reported as one; only a series intact but for its numbers is an interrupted rotation.
        let interrupted = InterruptedRotation.find(log: path).flatMap { $0.gap == nil ? nil : $0 }
        if interrupted == nil, let gap = series.gaps.first {
            let missing = AuditRotation.rotatedPath(path, gap)
            let compressed = access(missing + ".gz", F_OK) == 0 ? "; \(missing).gz is compressed: gunzip it first" : ""
            report.problem = AuditProblem(
                kind: .deleted,
                line: 1,
                seq: nil,
                detail: "\(missing) is missing from the series (\(AuditRotation.rotatedPath(path, gap + 1)) "
                    + "is beside it)\(compressed)",
                file: missing
            )
            return report
        }

        // Pass 1: how each file ends and begins, to check the links before the records.
        var ends: [Ends] = []
        for file in series.files {
            ends.append(try Ends(file: file, isCurrent: file == path && many))
        }
        if let problem = checkLinks(series.files, ends, startAfter: startAfter, warnings: &report.warnings) {
            report.problem = problem
            return report
        }

        // Pass 2: each file's records, from the record the file continues to the one the next
        // file continues (the head file, for the current log).
        var previousCount: Int64 = 0
        for (index, file) in series.files.enumerated() {
            let isLast = index == series.files.count - 1
            var anchor = AuditHead(seq: 0, hash: AuditChain.genesis)
            if let rotation = ends[index].firstRotation, index > 0 || rotation.previous.hash == startAfter {
                anchor = rotation.previous
            }
            var head: HeadState = .absent
            if !isLast, let next = ends[index + 1].firstRotation {
                head = .present(next.previous)
            } else if isLast, access(AuditHead.path(forLog: path), F_OK) == 0 {
                let headBytes = try Self.readFile(AuditHead.path(forLog: path))
                head = AuditHead(bytes: headBytes, chain: chain).map { .present($0) } ?? .unreadable
            }

            var part: AuditReport
            if isLast, many, ends[index].isEmpty {
                part = emptyCurrentLog(head: head, after: ends[index - 1].last, path: path)
            } else {
                let bytes = ends[index].isMissing ? [] : try Self.readFile(file)
                part = verify(bytes: bytes, head: head, after: anchor)
            }
            report.add(part)
            report.fileSummaries.append(
                AuditReport.FileSummary(
                    file: file,
                    records: part.records,
                    firstSeq: part.firstSeq,
                    lastSeq: part.lastSeq,
                    lastHash: part.lastHash
                )
            )
            report.warnings += part.warnings.map { many ? "\(file): \($0)" : $0 }
            if var problem = part.problem {
                if many { problem.file = file }
                report.problem = problem
                return report
            }
            // This file's rotate record is checked now: it counts the records of the one before.
            if index > 0, let count = ends[index].firstRotation?.previousRecords, count != previousCount {
                let before = series.files[index - 1]
                report.problem = AuditProblem(
                    kind: .deleted,
                    line: 1,
                    seq: nil,
                    detail: "\(before) holds \(previousCount) records, but the rotate record of \(file) "
                        + "says it held \(count)",
                    file: before
                )
                return report
            }
            previousCount = Int64(part.records)
        }
        if let interrupted, let gap = interrupted.gap {
            report.problem = AuditProblem(
                kind: .interrupted,
                line: 1,
                seq: nil,
                detail: "\(interrupted.found); 'ward audit verify --repair', the next 'ward audit rotate' or the next "
                    + "sign-on puts it back",
                file: AuditRotation.rotatedPath(path, gap)
            )
        }
        return report
    }

    /// The current log of a series is empty or missing: logrotate renamed it and no record has
    /// been written since. Intact when the head names the last record of the file before it.
    private func emptyCurrentLog(head: HeadState, after last: AuditRecord?, path: String) -> AuditReport {
        var report = AuditReport(algorithm: chain.algorithm)
        report.warnings.append(
            "the log is empty: it was renamed, and the next record (or 'ward audit rotate --renamed') starts it"
        )
        switch head {
        case .present(let h) where h.seq == last?.seq && h.hash == last?.hash:
            break
        case .present(let h):
            report.problem = AuditProblem(
                kind: .truncated,
                line: 1,
                seq: h.seq,
                detail:
                    "the log is empty and its head names record \(h.seq), which is not the last record of the file before it"
            )
        case .unreadable:
            report.problem = AuditProblem(
                kind: .modified,
                line: 1,
                seq: nil,
                detail: "the head file was changed (or written with another key)"
            )
        case .absent:
            // logrotate leaves the head file in place; without it, whatever followed the file
            // before cannot be told from nothing.
            report.problem = AuditProblem(
                kind: .deleted,
                line: 1,
                seq: last.map { $0.seq + 1 },
                detail: "the log is empty and its head file is gone: the records after the file before it "
                    + "cannot be checked"
            )
        }
        return report
    }

    /// The first problem with how the files follow one another, or nil.
    private func checkLinks(
        _ files: [String],
        _ ends: [Ends],
        startAfter: String?,
        warnings: inout [String]
    ) -> AuditProblem? {
        // Plain arrays, not closures over `ends`: the release optimizer of Swift 6.3 crashed on those.
        let lastHashes: [String?] = ends.map { $0.last?.hash }
        func fileIndex(endingWith hash: String, skipping skipped: Int) -> Int? {
            for candidate in lastHashes.indices where candidate != skipped && lastHashes[candidate] == hash {
                return candidate
            }
            return nil
        }
        for (index, file) in files.enumerated() {
            let here = ends[index]
            guard let first = here.first else {
                if here.isCurrentCandidate { continue }  // the renamed-and-empty current log
                if files.count > 1 {
                    return AuditProblem(
                        kind: .deleted,
                        line: 1,
                        seq: nil,
                        detail: "\(file) holds no record, though it is part of a rotated series",
                        file: file
                    )
                }
                continue  // a single empty log: the file's own check covers it
            }
            guard isValid(first) else { continue }  // the file's own check reports the change
            let rotation = AuditRotation(record: first)

            if index == 0 {
                guard let rotation else { continue }  // record 1, or the file's own check says what is missing
                if rotation.previous.hash == startAfter { continue }
                if let other = fileIndex(endingWith: rotation.previous.hash, skipping: -1) {
                    return AuditProblem(
                        kind: .reordered,
                        line: first.line,
                        seq: first.seq,
                        detail: "\(file) continues \(files[other]), which comes after it here: "
                            + "the files were renamed out of order",
                        file: file
                    )
                }
                let hint =
                    "if logrotate's retention removed it after it was archived and verified, "
                    + "run 'ward audit verify --start-after \(rotation.previous.hash)'"
                return AuditProblem(
                    kind: .deleted,
                    line: first.line,
                    seq: rotation.previous.seq,
                    detail: "\(file) begins by continuing a file that is not here "
                        + "(it ended at record \(rotation.previous.seq)); \(hint)",
                    file: file
                )
            }

            let before = ends[index - 1]
            let previousName = files[index - 1]
            guard let rotation else {
                return AuditProblem(
                    kind: .deleted,
                    line: first.line,
                    seq: first.seq,
                    detail: "\(file) does not continue \(previousName): its first record (\(first.seq)) "
                        + "is not a rotate record; the log was replaced by a new one",
                    file: file
                )
            }
            guard let last = before.last else { continue }
            if last.hash == rotation.previous.hash, last.seq == rotation.previous.seq {
                if rotation.cause == .missing {
                    warnings.append(
                        "when \(file) began, the log before it was not found as its .1 file; "
                            + "\(previousName) is that log, back in its place"
                    )
                }
                continue
            }
            if rotation.cause == .missing {
                return AuditProblem(
                    kind: .deleted,
                    line: first.line,
                    seq: rotation.previous.seq,
                    detail: "when \(file) began (line \(first.line)), the log before it was gone: "
                        + "it ended at record \(rotation.previous.seq) and was removed or moved elsewhere",
                    file: file
                )
            }

            if let other = fileIndex(endingWith: rotation.previous.hash, skipping: index - 1) {
                return AuditProblem(
                    kind: .reordered,
                    line: first.line,
                    seq: first.seq,
                    detail:
                        "\(file) continues \(files[other]), not \(previousName): the files were renamed out of order",
                    file: file
                )
            }
            if last.seq < rotation.previous.seq {
                var continuesThisFile = false
                if let firstSeq = before.firstSeq {
                    continuesThisFile = rotation.previous.seq - firstSeq + 1 == rotation.previousRecords
                }
                if continuesThisFile {
                    return AuditProblem(
                        kind: .truncated,
                        line: last.line + 1,
                        seq: last.seq + 1,
                        detail: "\(previousName) ends at record \(last.seq) (line \(last.line)), "
                            + "but \(file) continues it after record \(rotation.previous.seq)",
                        file: previousName
                    )
                }
                return AuditProblem(
                    kind: .deleted,
                    line: first.line,
                    seq: last.seq + 1,
                    detail: "a file is missing before \(file): it continues a file that ended at record "
                        + "\(rotation.previous.seq), and \(previousName) ends at record \(last.seq)",
                    file: file
                )
            }
            if last.seq > rotation.previous.seq {
                return AuditProblem(
                    kind: .inserted,
                    line: last.line,
                    seq: rotation.previous.seq + 1,
                    detail: "\(previousName) has records after record \(rotation.previous.seq), "
                        + "where \(file) continues the chain",
                    file: previousName
                )
            }
            return AuditProblem(
                kind: .modified,
                line: last.line,
                seq: last.seq,
                detail: "record \(last.seq) of \(previousName) is not the record \(file) continues",
                file: previousName
            )
        }
        return nil
    }

    /// The first and last records of one file of a series.
    private struct Ends {
        var first: AuditRecord?
        var last: AuditRecord?
        /// The file does not exist (the current log, renamed by logrotate with `nocreate`).
        var isMissing = false
        /// The current log of a series, which may be empty or missing after logrotate renamed it.
        var isCurrentCandidate = false

        var isEmpty: Bool { first == nil }
        var firstSeq: Int64? { first?.seq }
        var firstRotation: AuditRotation? { first.flatMap(AuditRotation.init(record:)) }

        init(file: String, isCurrent: Bool) throws(AuditError) {
            isCurrentCandidate = isCurrent
            let bytes: [UInt8]
            do {
                bytes = try AuditVerifier.readFile(file)
            } catch .file(.notFound) where isCurrent {
                isMissing = true
                return
            }
            for item in AuditVerifier.split(bytes) {
                guard let record = item.record else { continue }
                if first == nil { first = record }
                last = record
            }
        }
    }
}
