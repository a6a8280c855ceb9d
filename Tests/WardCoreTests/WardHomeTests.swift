import Glibc
import Testing

@testable import WardCore

/// A fresh directory under /tmp, removed (with everything in it) when the test ends.
final class ScratchHome {
    let path: String

    init() {
        var template = Array("/tmp/ward-test-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(made != nil, "mkdtemp failed")
        path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    deinit {
        _ = system("rm -rf '\(path)'")
    }

    func mode(of file: String) -> mode_t {
        var info = stat()
        precondition(stat(file, &info) == 0)
        return info.st_mode & 0o7777
    }

    func contents(of file: String) -> [UInt8] {
        let fd = open(file, O_RDONLY)
        precondition(fd >= 0)
        defer { close(fd) }
        return (try? FileSecurity.readAll(descriptor: fd, path: file)) ?? []
    }
}

struct WardHomeTests {
    @Test func resolves_optionBeforeEnvironment() {
        let env = ["WARD_HOME": "/env/ward", "XDG_DATA_HOME": "/xdg", "HOME": "/home/u"]
        #expect(WardHome.resolvePath(option: "/opt/ward", environment: { env[$0] }) == "/opt/ward")
        #expect(WardHome.resolvePath(option: nil, environment: { env[$0] }) == "/env/ward")
    }

    @Test func resolves_xdgDataHome_thenHome() {
        let xdg = ["XDG_DATA_HOME": "/xdg", "HOME": "/home/u"]
        #expect(WardHome.resolvePath(option: nil, environment: { xdg[$0] }) == "/xdg/ward")
        let relativeXDG = ["XDG_DATA_HOME": "relative", "HOME": "/home/u"]
        #expect(WardHome.resolvePath(option: nil, environment: { relativeXDG[$0] }) == "/home/u/.local/share/ward")
        let home = ["HOME": "/home/u", "WARD_HOME": ""]
        #expect(WardHome.resolvePath(option: nil, environment: { home[$0] }) == "/home/u/.local/share/ward")
    }

    @Test func names_itsFiles() {
        let home = WardHome(path: "/h/ward/")
        #expect(home.path == "/h/ward")
        #expect(home.recordsPath == "/h/ward/records.sqlite")
        #expect(home.credentialsPath == "/h/ward/credentials")
        #expect(home.auditLogPath == "/h/ward/audit.jsonl")
    }

    @Test func creates_missingHomeAndParents_0700() throws {
        let scratch = ScratchHome()
        let path = scratch.path + "/a/b/ward"
        let home = try WardHome.open(option: path)
        #expect(home.path == path)
        #expect(scratch.mode(of: path) == 0o700)
        #expect(scratch.mode(of: scratch.path + "/a") == 0o700)
    }

    @Test func refuses_existingHomeOthersCanOnlyRead_withTheChmodThatFixesIt() throws {
        let scratch = ScratchHome()
        chmod(scratch.path, 0o755)
        let error = #expect(throws: FileSecurityError.self) { try WardHome.open(option: scratch.path) }
        #expect(error == .unsafeMode(path: scratch.path, mode: 0o755, fix: "700"))
        #expect(error?.description.contains("group or others can read it") == true)
        #expect(error?.description.contains("chmod 700 \(scratch.path)") == true)
        #expect(error?.exitStatus == .configuration)
        #expect(scratch.mode(of: scratch.path) == 0o755)  // left as it was
    }

    @Test func refuses_homeOthersCanWrite() throws {
        let scratch = ScratchHome()
        chmod(scratch.path, 0o777)
        let error = #expect(throws: FileSecurityError.self) { try WardHome.open(option: scratch.path) }
        #expect(error == .unsafeMode(path: scratch.path, mode: 0o777, fix: "700"))
        #expect(error?.description.contains("chmod 700 \(scratch.path)") == true)
        #expect(error?.description.contains("0777") == true)
        #expect(error?.exitStatus == .configuration)
    }

    @Test func refuses_homeThatIsAFile() throws {
        let scratch = ScratchHome()
        let file = scratch.path + "/file"
        close(try FileSecurity.createFile(atPath: file))
        #expect(throws: FileSecurityError.notDirectory(path: file)) { try WardHome.open(option: file) }
    }

    @Test(.enabled(if: geteuid() == 0, "needs root to give a directory away"))
    func refuses_homeAnotherUserOwns() throws {
        let scratch = ScratchHome()
        chown(scratch.path, 4242, 4242)
        #expect(throws: FileSecurityError.wrongOwner(path: scratch.path, owner: 4242, user: 0)) {
            try WardHome.open(option: scratch.path)
        }
    }

    @Test func missingHome_withoutCreate_isNotFound() {
        let scratch = ScratchHome()
        #expect(throws: FileSecurityError.notFound(path: scratch.path + "/none")) {
            try WardHome.open(option: scratch.path + "/none", create: false)
        }
    }
}

struct FileSecurityTests {
    @Test func createFile_is0600_evenUnderLooseUmask() throws {
        let scratch = ScratchHome()
        let old = umask(0)
        defer { umask(old) }
        let fd = try FileSecurity.createFile(atPath: scratch.path + "/f")
        close(fd)
        #expect(scratch.mode(of: scratch.path + "/f") == 0o600)
    }

    @Test func createFile_refusesExistingPathAndLinks() throws {
        let scratch = ScratchHome()
        symlink("/etc/passwd", scratch.path + "/link")
        #expect(throws: FileSecurityError.self) { try FileSecurity.createFile(atPath: scratch.path + "/link") }
    }

    @Test func openFile_refusesSymbolicLink() throws {
        let scratch = ScratchHome()
        close(try FileSecurity.createFile(atPath: scratch.path + "/real"))
        symlink(scratch.path + "/real", scratch.path + "/link")
        #expect(throws: FileSecurityError.symbolicLink(path: scratch.path + "/link")) {
            try FileSecurity.openFile(atPath: scratch.path + "/link")
        }
        #expect(throws: FileSecurityError.symbolicLink(path: scratch.path + "/link")) {
            try FileSecurity.openFile(atPath: scratch.path + "/link", flags: O_WRONLY, create: true)
        }
    }

    @Test func openFile_refusesGroupWritable_saysWhy() throws {
        let scratch = ScratchHome()
        let path = scratch.path + "/f"
        close(try FileSecurity.createFile(atPath: path))
        chmod(path, 0o620)
        let error = #expect(throws: FileSecurityError.self) { try FileSecurity.checkFile(atPath: path) }
        #expect(
            error?.description
                == "\(path) has mode 0620: group or others can write it; Ward refuses it. Run 'chmod 600 \(path)' if its contents are yours."
        )
    }

    @Test func defaultRule_refusesReadableByOthers() throws {
        let scratch = ScratchHome()
        let path = scratch.path + "/f"
        close(try FileSecurity.createFile(atPath: path))
        chmod(path, 0o644)
        #expect(throws: FileSecurityError.unsafeMode(path: path, mode: 0o644, fix: "600")) {
            try FileSecurity.checkFile(atPath: path)
        }
    }

    @Test func openFile_refusesDirectory() throws {
        let scratch = ScratchHome()
        #expect(throws: FileSecurityError.notRegularFile(path: scratch.path)) {
            try FileSecurity.checkFile(atPath: scratch.path)
        }
    }

    @Test func openFile_missing_isNotFound_exit66() {
        let error = #expect(throws: FileSecurityError.self) { try FileSecurity.openFile(atPath: "/nonexistent/x") }
        #expect(error == .notFound(path: "/nonexistent/x"))
        #expect(error?.exitStatus == .noInput)
    }
}
