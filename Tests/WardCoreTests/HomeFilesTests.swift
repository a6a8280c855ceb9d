import Glibc
import Testing

@testable import WardCore

/// Every file of the home is the owner's alone, or Ward stops with exit 78, the
/// path, what is wrong and the command that fixes it.
struct HomeFilesTests {
    /// A home (0700) with `file` created 0600 in it.
    private func home(with file: String, _ scratch: ScratchHome) throws -> (WardHome, String) {
        let home = try WardHome.open(option: scratch.path + "/ward")
        let path = home.path + "/" + file
        close(try FileSecurity.createFile(atPath: path))
        return (home, path)
    }

    @Test(arguments: [
        "records.sqlite", "records.sqlite-journal", "records.sqlite-wal", "records.sqlite-shm", "credentials",
        "credentials.lock", "audit.jsonl", "audit.jsonl.head",
    ])
    func refuses_homeFileOthersCanRead(_ file: String) throws {
        let scratch = ScratchHome()
        let (home, path) = try home(with: file, scratch)
        chmod(path, 0o644)
        let error = #expect(throws: FileSecurityError.self) { try WardHome.open(option: home.path) }
        #expect(error == .unsafeMode(path: path, mode: 0o644, fix: "600"))
        #expect(error?.description.contains("group or others can read it") == true)
        #expect(error?.description.contains("chmod 600 \(path)") == true)
        #expect(error?.exitStatus == .configuration)
    }

    @Test(arguments: [0o640, 0o604, 0o660, 0o606, 0o610, 0o601] as [mode_t])
    func refuses_recordsWithAnyGroupOrOtherBit(_ mode: mode_t) throws {
        let scratch = ScratchHome()
        let (home, path) = try home(with: "records.sqlite", scratch)
        chmod(path, mode)
        #expect(throws: FileSecurityError.unsafeMode(path: path, mode: mode, fix: "600")) {
            try home.checkFiles()
        }
    }

    @Test func accepts_homeWhoseFilesAreOwnerOnly() throws {
        let scratch = ScratchHome()
        let (home, path) = try home(with: "records.sqlite", scratch)
        chmod(path, 0o400)
        try home.checkFiles()
        _ = try WardHome.open(option: home.path)
    }

    @Test func refuses_symlinkedRecordsFile_evenToAPrivateFile() throws {
        let scratch = ScratchHome()
        let home = try WardHome.open(option: scratch.path + "/ward")
        close(try FileSecurity.createFile(atPath: scratch.path + "/elsewhere.sqlite"))
        symlink(scratch.path + "/elsewhere.sqlite", home.recordsPath)
        let error = #expect(throws: FileSecurityError.self) { try WardHome.open(option: home.path) }
        #expect(error == .symbolicLink(path: home.recordsPath))
        #expect(error?.exitStatus == .configuration)
    }

    @Test func refuses_danglingSymlinkInPlaceOfTheAuditLog() throws {
        let scratch = ScratchHome()
        let home = try WardHome.open(option: scratch.path + "/ward")
        symlink(scratch.path + "/nowhere", home.auditLogPath)
        #expect(throws: FileSecurityError.symbolicLink(path: home.auditLogPath)) { try home.checkFiles() }
    }

    @Test func refuses_fifoInPlaceOfTheCredentials_withoutWaitingForAWriter() throws {
        let scratch = ScratchHome()
        let home = try WardHome.open(option: scratch.path + "/ward")
        #expect(mkfifo(home.credentialsPath, 0o600) == 0)
        #expect(throws: FileSecurityError.notRegularFile(path: home.credentialsPath)) { try home.checkFiles() }
    }

    @Test func refuses_homeThatIsASymbolicLink() throws {
        let scratch = ScratchHome()
        _ = try WardHome.open(option: scratch.path + "/real")
        symlink(scratch.path + "/real", scratch.path + "/link")
        let error = #expect(throws: FileSecurityError.self) { try WardHome.open(option: scratch.path + "/link") }
        #expect(error == .symbolicLink(path: scratch.path + "/link"))
        #expect(error?.exitStatus == .configuration)
    }

    @Test func checksAnAuditLogTheSiteKeepsElsewhere() throws {
        let scratch = ScratchHome()
        let home = try WardHome.open(option: scratch.path + "/ward")
        let log = scratch.path + "/site-audit.jsonl"
        close(try FileSecurity.createFile(atPath: log))
        chmod(log, 0o644)
        #expect(throws: FileSecurityError.unsafeMode(path: log, mode: 0o644, fix: "600")) {
            try home.checkFiles(extra: WardHome.auditFiles(log: log))
        }
    }

    @Test(.enabled(if: geteuid() == 0, "needs root to give a file away"))
    func refuses_recordsFileAnotherUserOwns() throws {
        let scratch = ScratchHome()
        let (home, path) = try home(with: "records.sqlite", scratch)
        chown(path, 4242, 4242)
        #expect(throws: FileSecurityError.wrongOwner(path: path, owner: 4242, user: 0)) { try home.checkFiles() }
    }

    @Test func missingFiles_pass() throws {
        let scratch = ScratchHome()
        let home = try WardHome.open(option: scratch.path + "/ward")
        try home.checkFiles()
    }
}
