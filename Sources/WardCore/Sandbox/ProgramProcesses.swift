import Glibc

/// Every process a program `ward exec` runs has started, found in /proc: its children and
/// theirs, and the ones that left (a `setsid` job, a daemon) and, Ward being the child
/// subreaper, became Ward's children when their parent ended. A lock stops them all; sign-off
/// ends them all.
///
/// A process that left is told from Ward's other children (external plugins, which may be
/// started again at any time) by marks a program cannot take off: it started after the program,
/// and it carries one seccomp filter more than Ward (the exec filter). Without the sandbox
/// (`sandbox = "off"`) the only mark left is the program's session, which `setsid` leaves: such
/// a job is not found then (ward-site.toml(5) says so).
///
/// - Important: Not `Sendable`. It runs on the driver's loop thread.
final class ProgramProcesses {
    /// The program's own process.
    let leader: pid_t
    private let ward = getpid()
    private let leaderStart: UInt64
    private let sandboxed: Bool
    private let wardFilters: Int
    /// The processes Ward stopped, so that it continues those and not a job the user stopped.
    private var stopped: Set<pid_t> = []

    init(leader: pid_t, sandboxed: Bool) {
        self.leader = leader
        self.sandboxed = sandboxed
        leaderStart = ProcessTable.entry(leader)?.start ?? 0
        wardFilters = ProcessTable.seccompFilters(getpid()) ?? 0
    }

    /// The program and every process it started that still runs (zombies left out), the program
    /// first.
    func members() -> [pid_t] {
        let table = ProcessTable.read()
        var children: [pid_t: [pid_t]] = [:]
        for (pid, entry) in table { children[entry.parent, default: []].append(pid) }
        var roots: [pid_t] = table[leader] != nil ? [leader] : []
        for pid in children[ward] ?? [] where pid != leader && isLeftBehind(pid, table[pid]) {
            roots.append(pid)
        }
        var found: [pid_t] = []
        var seen: Set<pid_t> = []
        var queue = roots
        while let pid = queue.popLast() {
            guard seen.insert(pid).inserted else { continue }
            if table[pid]?.state != "Z" { found.append(pid) }
            queue += children[pid] ?? []
        }
        return found.sorted { ($0 == leader ? 0 : 1, $0) < ($1 == leader ? 0 : 1, $1) }
    }

    private func isLeftBehind(_ pid: pid_t, _ entry: ProcessTable.Entry?) -> Bool {
        guard let entry, entry.start >= leaderStart else { return false }
        return sandboxed ? (ProcessTable.seccompFilters(pid) ?? 0) > wardFilters : entry.session == leader
    }

    /// SIGSTOP to every member, again until no new one appears (a process stopped cannot start
    /// another, but one may have been started while the list was read).
    func stopAll() {
        for _ in 0..<16 {
            let fresh = members().filter { !stopped.contains($0) }
            guard !fresh.isEmpty else { return }
            for pid in fresh where kill(pid, SIGSTOP) == 0 { stopped.insert(pid) }
        }
    }

    /// SIGCONT to the processes `stopAll` stopped.
    func continueAll() {
        for pid in stopped { kill(pid, SIGCONT) }
        stopped = []
    }

    /// `signal` to every member but the program (whose own end `ChildProcess` sees to), each
    /// continued first if Ward stopped it so that it can act on it.
    func signalOthers(_ signal: Int32) {
        for pid in members() where pid != leader {
            kill(pid, signal)
            if stopped.contains(pid) { kill(pid, SIGCONT) }
        }
        if signal == SIGKILL { stopped = [] }
    }

    /// Ends every member but the program within `grace`: SIGTERM (and SIGHUP, for a job that
    /// listens only for its terminal), then SIGKILL to what is left, until none is left; reaps
    /// those that became Ward's children.
    func endOthers(grace: Duration) {
        signalOthers(SIGTERM)
        signalOthers(SIGHUP)
        let until = ContinuousClock.now + grace
        while ContinuousClock.now < until, members().contains(where: { $0 != leader }) {
            reapLeftBehind()
            usleep(5_000)
        }
        for _ in 0..<16 {
            guard members().contains(where: { $0 != leader }) else { break }
            signalOthers(SIGKILL)
            usleep(1_000)
        }
        stopped = []
        reapLeftBehind()
    }

    /// Collects the exit of every process that became Ward's child and has ended, so none stays
    /// a zombie.
    func reapLeftBehind() {
        for (pid, entry) in ProcessTable.read()
        where entry.parent == ward && pid != leader && entry.state == "Z" && isLeftBehind(pid, entry) {
            var status: Int32 = 0
            _ = waitpid(pid, &status, WNOHANG)
        }
    }
}

@available(*, unavailable)
extension ProgramProcesses: Sendable {}

/// The processes of the system as /proc shows them: each one's parent, state and start time.
enum ProcessTable {
    struct Entry: Equatable {
        var parent: pid_t
        /// `R`, `S`, `T`, `Z`…
        var state: Character
        /// Its session's leader.
        var session: pid_t
        /// Clock ticks after boot.
        var start: UInt64
    }

    static func read() -> [pid_t: Entry] {
        guard let directory = opendir("/proc") else { return [:] }
        defer { closedir(directory) }
        var table: [pid_t: Entry] = [:]
        while let item = readdir(directory) {
            let name = withUnsafeBytes(of: item.pointee.d_name) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard let pid = pid_t(name), let entry = entry(pid) else { continue }
            table[pid] = entry
        }
        return table
    }

    /// /proc/PID/stat, read past the command name (which may hold spaces and parentheses).
    static func entry(_ pid: pid_t) -> Entry? {
        guard let text = contents("/proc/\(pid)/stat"), let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // After the name: state (3), ppid (4), pgrp (5), session (6) … starttime (22).
        guard fields.count > 19, let state = fields[0].first, let parent = pid_t(fields[1]),
            let session = pid_t(fields[3]), let start = UInt64(fields[19])
        else { return nil }
        return Entry(parent: parent, state: state, session: session, start: start)
    }

    /// The number of seccomp filters `pid` runs under.
    static func seccompFilters(_ pid: pid_t) -> Int? { statusNumber(pid, "Seccomp_filters") }

    /// The threads of `pid`.
    static func threads(_ pid: pid_t) -> Int? { statusNumber(pid, "Threads") }

    /// A number in /proc/PID/status: the line `NAME:` followed by blanks and the number.
    private static func statusNumber(_ pid: pid_t, _ name: String) -> Int? {
        guard let text = contents("/proc/\(pid)/status"),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") })
        else { return nil }
        return Int(line.dropFirst(name.count + 1).trimmingPrefix(while: { $0 == " " || $0 == "\t" }))
    }

    private static func contents(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        var have = 0
        while true {
            if have == buffer.count { buffer += [UInt8](repeating: 0, count: buffer.count) }
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + have, $0.count - have) }
            if n <= 0 { break }
            have += n
        }
        return have > 0 ? String(decoding: buffer[..<have], as: UTF8.self) : nil
    }
}
