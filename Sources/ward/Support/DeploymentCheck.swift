import AuditLog
import Glibc
import WardCore

/// What `ward config check` can see of the deployment, for the account that runs it: whether a
/// session started now would find its home and audit log safe, before a clinician finds out by
/// being refused.
///
/// Sessions refuse an unsafe home or log themselves (`WardHome`, `FileSecurity`); this only asks
/// the same questions early and all at once. Where several people's sessions share one home
/// (DEPLOYMENT in ward(1)), the account that runs them must own the home and the log, and the
/// site file should be one it cannot change: a site file the sessions' own account may write is
/// a policy the sessions could weaken, so it is a warning (not refused: on a workstation the
/// user running Ward may well own the file).
struct DeploymentCheck {
    /// One thing found: fine, worth a warning, or a problem a session would be refused for.
    struct Finding: Equatable {
        enum Severity: Equatable { case fine, warning, problem }
        /// The path the finding is about (the home, the audit log, the site file).
        var file = ""
        var severity: Severity
        var text: String

        /// As `ward config check` reports it, nil for what is fine: a problem is an error (a
        /// session would be refused), a warning a warning.
        var problem: ConfigProblem? {
            guard severity != .fine else { return nil }
            var problem = ConfigProblem(
                file: file,
                line: 0,
                key: nil,
                severity: severity == .problem ? .error : .warning,
                message: text,
                fix: nil
            )
            problem.text = severity == .problem ? text : "warning: " + text
            return problem
        }
    }

    let home: String
    /// The audit log a session would write, nil when the chain has none.
    let auditLog: String?
    /// The site file, nil for the built-in defaults.
    let siteFile: String?
    var uid = geteuid()

    func run() -> [Finding] { checkHome() + checkAuditLog() + checkSiteFile() }

    private var account: String {
        AdministrativeAudit.currentUnixUser().name ?? "uid \(uid)"
    }

    private func checkHome() -> [Finding] {
        var info = stat()
        if lstat(home, &info) != 0, errno == ENOENT {
            return [
                Finding(file: home, severity: .fine, text: "home \(home) does not exist yet; a session creates it 0700")
            ]
        }
        do {
            let wardHome = WardHome(path: home)
            try wardHome.prepare(create: false)
            try wardHome.checkFiles()
        } catch {
            return [Finding(file: home, severity: .problem, text: error.description)]
        }
        return [
            Finding(file: home, severity: .fine, text: "home \(home): \(account)'s, mode \(Self.mode(info.st_mode))")
        ]
    }

    private func checkAuditLog() -> [Finding] {
        guard let auditLog else {
            return [
                Finding(
                    file: siteFile ?? "",
                    severity: .warning,
                    text: "the chain has no audit log: sessions leave no record"
                )
            ]
        }
        var findings: [Finding] = []
        let directory = Self.directory(of: auditLog)
        var info = stat()
        if stat(directory, &info) != 0 {
            if !auditLog.hasPrefix(home + "/") {
                findings.append(
                    Finding(
                        file: auditLog,
                        severity: .problem,
                        text: "\(directory), the audit log's directory, does not exist"
                    )
                )
            }
        } else if info.st_mode & S_IWOTH != 0 && info.st_mode & S_ISVTX == 0 {
            findings.append(
                Finding(
                    file: auditLog,
                    severity: .problem,
                    text: "\(directory), the audit log's directory, may be written by everyone: "
                        + "anyone could replace the log (chmod o-w \(directory))"
                )
            )
        } else if access(directory, W_OK) != 0 {
            findings.append(
                Finding(
                    file: auditLog,
                    severity: .problem,
                    text: "\(directory), the audit log's directory, is not writable by \(account), "
                        + "who runs the sessions: the log cannot be created or rotated"
                )
            )
        }
        if lstat(auditLog, &info) != 0, errno == ENOENT {
            // Only where it can: a missing directory is the problem reported above.
            if findings.isEmpty {
                findings.append(
                    Finding(
                        file: auditLog,
                        severity: .fine,
                        text: "audit log \(auditLog) does not exist yet; a session creates it 0600"
                    )
                )
            }
            return findings
        }
        do {
            for file in WardHome.auditFiles(log: auditLog) { try FileSecurity.checkIfPresent(atPath: file) }
            findings.append(
                Finding(
                    file: auditLog,
                    severity: .fine,
                    text: "audit log \(auditLog): \(account)'s, mode \(Self.mode(info.st_mode))"
                )
            )
        } catch {
            findings.append(Finding(file: auditLog, severity: .problem, text: error.description))
        }
        return findings
    }

    /// Who besides root may change the site file, by its owner and mode. Run as root, the
    /// check cannot ask `access(2)`, which says yes to root for every file, so it reads the mode.
    private func checkSiteFile() -> [Finding] {
        guard let siteFile else { return [] }
        var info = stat()
        guard stat(siteFile, &info) == 0 else { return [] }
        let owner = Self.userName(info.st_uid)
        let mode = Self.mode(info.st_mode)
        if uid != 0, info.st_uid == uid || access(siteFile, W_OK) == 0 {
            return [
                Finding(
                    file: siteFile,
                    severity: .warning,
                    text: "\(siteFile) may be changed by \(account), who runs the sessions: where several people "
                        + "share this account, the site file belongs to root (chown root: \(siteFile); chmod 644 \(siteFile))"
                )
            ]
        }
        var writers: [String] = []
        if info.st_uid != 0 { writers.append("its owner, \(owner)") }
        if info.st_mode & S_IWGRP != 0 { writers.append("the group \(Self.groupName(info.st_gid))") }
        if !writers.isEmpty {
            return [
                Finding(
                    file: siteFile,
                    severity: .warning,
                    text: "\(siteFile) is \(owner)'s, mode \(mode): \(writers.joined(separator: " and ")) may change "
                        + "the site policy; it belongs to root, writable by root alone "
                        + "(chown root: \(siteFile); chmod 644 \(siteFile))"
                )
            ]
        }
        if uid == 0 {
            return [
                Finding(
                    file: siteFile,
                    severity: .fine,
                    text: "site file \(siteFile): root's, mode \(mode), writable by root alone "
                        + "(checked as root: run the check as the account that runs the sessions for its home and log)"
                )
            ]
        }
        return [
            Finding(
                file: siteFile,
                severity: .fine,
                text: "site file \(siteFile): \(owner)'s, mode \(mode), not writable by \(account)"
            )
        ]
    }

    static func userName(_ uid: uid_t) -> String {
        guard let entry = getpwuid(uid), let name = entry.pointee.pw_name else { return "uid \(uid)" }
        return String(cString: name)
    }

    static func groupName(_ gid: gid_t) -> String {
        guard let entry = getgrgid(gid), let name = entry.pointee.gr_name else { return "gid \(gid)" }
        return String(cString: name)
    }

    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    static func mode(_ mode: mode_t) -> String {
        "0" + String(mode & 0o7777, radix: 8)
    }
}

/// The deployment's problems, after the policy was printed: each would stop a session, which
/// would exit 78 for it as well.
struct DeploymentProblems: WardError {
    let problems: [String]
    var description: String { problems.joined(separator: "\n") }
    var exitStatus: ExitStatus { .configuration }
}
