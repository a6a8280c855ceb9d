import WardPluginAPI

/// Why a session cannot be started: the home's list of live sessions cannot hold its entry.
public enum SessionRegistryError: WardError, Equatable {
    /// `sessions/` in the home is unsafe (a plain file, another user's, open to others) or
    /// cannot be written (a full disk); `error` names the path and the fix.
    case cannotRegister(directory: String, FileSecurityError)

    public var description: String {
        switch self {
        case .cannotRegister(let directory, let error):
            "\(error) Ward lists each live session in \(directory) so that 'ward lock' can reach it, "
                + "and starts no session it cannot list there."
        }
    }

    /// 78 (EX_CONFIG) for a directory Ward refuses, as for any unsafe file of the home; 73
    /// (EX_CANTCREAT) when the entry cannot be written (a full disk, a read-only file system).
    public var exitStatus: ExitStatus {
        switch self {
        case .cannotRegister(_, .system): .cannotCreate
        case .cannotRegister: .configuration
        }
    }
}
