import Glibc
import WardCore

/// A fresh directory under /tmp for one test's files; removed by `remove()`.
struct ConfigScratch {
    let path: String

    init() {
        var template = Array("/tmp/ward-config-test.XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(made != nil, "mkdtemp failed")
        path = String(cString: template)
    }

    /// Writes `text` to `name` in the directory (creating folders on the way) and returns its path.
    @discardableResult
    func write(_ name: String, _ text: String, mode: mode_t = 0o644) -> String {
        let full = path + "/" + name
        var folder = ""
        for part in full.split(separator: "/").dropLast() {
            folder += "/" + part
            mkdir(folder, 0o755)
        }
        let fd = open(full, O_WRONLY | O_CREAT | O_TRUNC, mode)
        precondition(fd >= 0, "cannot write \(full)")
        _ = Array(text.utf8).withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        fchmod(fd, mode)
        close(fd)
        return full
    }

    func remove() { removeTree(path) }
}

/// Removes a directory tree (the scratch directories only hold plain files and folders).
private func removeTree(_ path: String) {
    if let dir = opendir(path) {
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name == "." || name == ".." { continue }
            removeTree(path + "/" + name)
        }
        closedir(dir)
        rmdir(path)
    } else {
        unlink(path)
    }
}

/// The error a throwing call threw, as a `ConfigError`; nil when it did not throw one.
func configError<T>(_ body: () throws -> T) -> ConfigError? {
    do {
        _ = try body()
        return nil
    } catch let error as ConfigError {
        return error
    } catch {
        return nil
    }
}
