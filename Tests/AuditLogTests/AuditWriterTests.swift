import AuditLog
import Glibc
import Testing
import WardCore

/// Files: how the log is created, and every way it fails closed.
@Suite struct AuditWriterTests {
    let directory = TempDirectory()
    var path: String { directory.file("audit.jsonl") }

    private func append(_ writer: AuditWriter) throws(AuditError) {
        try writer.append(.command(LineSummary(command: "charts")), session: testSession, source: "tty")
    }

    @Test func createsTheLogAndItsHead_0600() throws {
        let writer = try AuditWriter(path: path)
        try append(writer)
        var info = stat()
        #expect(stat(path, &info) == 0 && info.st_mode & 0o7777 == 0o600)
        #expect(stat(AuditHead.path(forLog: path), &info) == 0 && info.st_mode & 0o7777 == 0o600)
        #expect(
            headState(path)
                == .present(
                    AuditHead(seq: 1, hash: AuditRecord(line: 1, bytes: lines(of: readBytes(path))[0][...])!.hash)
                )
        )
    }

    @Test func continuesTheChain_acrossWriters() throws {
        try writeLog(path, count: 3).close()
        try writeLog(path, count: 2).close()
        let report = AuditVerifier().verify(bytes: readBytes(path), head: headState(path))
        #expect(report.isIntact)
        #expect(report.lastSeq == 5)
    }

    @Test func missingDirectory_isRefusedAtStart() {
        let error = #expect(throws: AuditError.self) {
            try AuditWriter(path: directory.file("no/such/dir/audit.jsonl"))
        }
        guard case .file(.system(_, _, ENOENT)) = error else {
            Issue.record("expected ENOENT, got \(String(describing: error))")
            return
        }
    }

    @Test func symbolicLink_isRefusedAtStart() {
        writeBytes(directory.file("elsewhere"), [])
        #expect(symlink(directory.file("elsewhere"), path) == 0)
        #expect(throws: AuditError.file(.symbolicLink(path: path))) { try AuditWriter(path: path) }
    }

    @Test func fileOthersCanWrite_isRefusedAtStart() {
        writeBytes(path, [])
        #expect(chmod(path, 0o666) == 0)
        #expect(throws: AuditError.file(.unsafeMode(path: path, mode: 0o666, fix: "600"))) {
            try AuditWriter(path: path)
        }
    }

    @Test func directoryRemovedDuringSession_failsClosed() throws {
        let sub = directory.file("logs")
        #expect(mkdir(sub, 0o700) == 0)
        let writer = try AuditWriter(path: sub + "/audit.jsonl")
        try append(writer)
        #expect(runProcess("/bin/rm", ["-rf", sub]) == 0)
        #expect(throws: AuditError.self) { try append(writer) }
    }

    @Test func symlinkSwappedInDuringSession_failsClosed() throws {
        let writer = try AuditWriter(path: path)
        try append(writer)
        #expect(rename(path, directory.file("old.jsonl")) == 0)
        #expect(symlink(directory.file("old.jsonl"), path) == 0)
        #expect(throws: AuditError.file(.symbolicLink(path: path))) { try append(writer) }
        #expect(lines(of: readBytes(directory.file("old.jsonl"))).count == 1)
    }

    @Test func fileMadeReadOnlyDuringSession_failsClosed() throws {
        let writer = try AuditWriter(path: path)
        try append(writer)
        #expect(chmod(path, 0o400) == 0)
        #expect(throws: AuditError.readOnly(path: path)) { try append(writer) }
    }

    @Test func fileMadeWritableByOthersDuringSession_failsClosed() throws {
        let writer = try AuditWriter(path: path)
        try append(writer)
        #expect(chmod(path, 0o622) == 0)
        #expect(throws: AuditError.self) { try append(writer) }
    }

    @Test func recordsCutFromTheEnd_areRefusedByTheNextWriter() throws {
        try writeLog(path, count: 5).close()
        writeBytes(path, joinLines(Array(lines(of: readBytes(path)).prefix(3))))
        let writer = try AuditWriter(path: path)
        let error = #expect(throws: AuditError.self) { try append(writer) }
        guard case .headMismatch = error else {
            Issue.record("expected headMismatch, got \(String(describing: error))")
            return
        }
        #expect(error?.exitStatus == .dataError)
    }

    @Test func rotation_startsANewChain() throws {
        let writer = try AuditWriter(path: path)
        try append(writer)
        #expect(rename(path, path + ".1") == 0)
        #expect(rename(AuditHead.path(forLog: path), AuditHead.path(forLog: path + ".1")) == 0)
        try append(writer)
        let report = AuditVerifier().verify(bytes: readBytes(path), head: headState(path))
        #expect(report.isIntact && report.firstSeq == 1 && report.records == 1)
    }

    @Test func noPermission_isRefusedAtStart() throws {
        if isRoot {
            // Root ignores file modes: let a child process do it as nobody.
            #expect(chmod(directory.path, 0o755) == 0)
            let status = runChild(mode: "start-refused", log: path, uid: 65534)
            #expect(status == 0)
        } else {
            #expect(chmod(directory.path, 0o500) == 0)
            #expect(throws: AuditError.self) { try AuditWriter(path: path) }
        }
    }
}
