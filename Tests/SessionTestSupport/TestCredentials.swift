import Glibc
import WardCore

/// A credential store in a directory of its own under /tmp, removed with it; every user has the
/// password `TestCredentials.password`.
public final class TestCredentials {
    public static let password = "correct horse"
    public let store: CredentialStore
    private let directory: String

    public init(users: [String: Role]) throws {
        var template = Array("/tmp/ward-session-test-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(made != nil, "mkdtemp failed")
        directory = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        store = CredentialStore(
            path: directory + "/credentials",
            lockPath: directory + "/credentials.lock",
            parameters: .testing
        )
        for (name, role) in users.sorted(by: { $0.key < $1.key }) {
            try store.add(name: name, role: role, password: Password(bytes: Array(Self.password.utf8)))
        }
    }

    deinit {
        _ = system("rm -rf '\(directory)'")
    }
}
