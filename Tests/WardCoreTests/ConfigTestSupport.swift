import Glibc
import WardCore

/// A fresh directory under /tmp for one test's files; removed by `remove()`.
struct ConfigScratch {
    let path: String

    init() {
        var template = Array("/tmp/ward-config-test.XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(made != nil, "mkdtemp failed")
        path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
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

/// Removes a directory tree: plain files, folders, and symbolic links, which are removed
/// themselves, never followed (a test's link may point at /etc).
private func removeTree(_ path: String) {
    var info = stat()
    if lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFLNK {
        unlink(path)
    } else if let dir = opendir(path) {
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

/// A plugin that stands in for one of Ward's built-in plugins under its site-file name: WardCore's
/// tests cannot import the plugin targets. Reads `grace` (0s to 1m), so that tests can give it
/// a key it knows, one out of range, and one it does not know.
class StandIn: Plugin {
    class var name: String { "stand-in" }
    class var summary: String { "Stands in for a built-in plugin." }
    class var isRepeatable: Bool { false }
    let grace: Duration?

    required init(settings: PluginSettings, environment: PluginEnvironment) throws {
        grace = try settings.duration("grace", in: .zero ... .seconds(60))
    }

    func intercept(_ event: Event, context: PluginContext) -> Disposition { .pass }
}

final class IdleTimerStandIn: StandIn {
    override class var name: String { "idle-timer" }
}

final class AuditLogStandIn: StandIn {
    override class var name: String { "audit-log" }
}

final class SuspendGuardStandIn: StandIn {
    override class var name: String { "suspend-guard" }
}

/// Cannot be built, as a plugin whose log cannot be opened.
final class FocusGuardStandIn: StandIn {
    override class var name: String { "focus-guard" }

    required init(settings: PluginSettings, environment: PluginEnvironment) throws {
        throw Broken()
    }
}

final class ExternalStandIn: StandIn {
    override class var name: String { "external" }
    override class var isRepeatable: Bool { true }
}

struct Broken: Error, CustomStringConvertible {
    var description: String { "cannot open /var/log/ward: permission denied" }
}

/// The stand-ins in `ward plugins` order, with Ward's default chain: what the executable's
/// registry holds, as far as WardCore can tell.
let standInPlugins = PluginRegistry(
    [
        IdleTimerStandIn.self, AuditLogStandIn.self, SuspendGuardStandIn.self, FocusGuardStandIn.self,
        ExternalStandIn.self,
    ],
    defaultChain: [IdleTimerStandIn.self, AuditLogStandIn.self, SuspendGuardStandIn.self]
)
