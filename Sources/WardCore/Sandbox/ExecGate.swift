import CWardSystem
import Glibc

/// Ward's answer to every exec a sandboxed program tries: the site's `may-run` go on, every
/// other fails with EPERM and is reported for the audit log. The seccomp filter hands each
/// execve and execveat here (`ward_exec_attempt_receive`) and the process waits until it is
/// answered; a program cannot answer them itself, since the filter refuses it another filter.
///
/// A may-run path is let through only when the process that named it has one thread: the kernel
/// reads the path again after the answer, and another thread could change it meanwhile. Landlock
/// still bounds what it could change it to (the program, its may-run helpers, their loaders).
struct ExecGate {
    let listener: Int32
    let mayRun: Set<String>

    /// What answering the waiting attempts found.
    struct Answers {
        /// The attempts refused, in order.
        var refused: [ProgramExecAttempt] = []
        /// No process runs under the filter any more: stop watching.
        var closed = false
    }

    /// Answers every attempt that waits now.
    func answerWaiting() -> Answers {
        var answers = Answers()
        var path = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        for _ in 0..<64 {
            var id: UInt64 = 0
            var caller: pid_t = 0
            var isExecveat: Int32 = 0
            let received = ward_exec_attempt_receive(listener, &id, &caller, &isExecveat, &path, path.count)
            if received == -EAGAIN { break }
            if received == -EPIPE || received == -EBADF {
                answers.closed = true
                break
            }
            guard received == 0 else { continue }  // the caller died meanwhile
            let named = String(decoding: path.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let refusal = reason(named, execveat: isExecveat != 0, caller: caller)
            guard ward_exec_attempt_answer(listener, id, refusal == nil ? 1 : 0) == 0, let refusal else { continue }
            answers.refused.append(ProgramExecAttempt(path: named, process: caller, reason: refusal))
        }
        return answers
    }

    /// Nil when the exec may go on; else why not, in a few words.
    func reason(_ path: String, execveat: Bool, caller: pid_t) -> String? {
        guard mayRun.contains(path) else {
            return mayRun.isEmpty ? "the site lets it start no program" : "not in may-run"
        }
        if execveat { return "execveat (may-run is matched by execve's path)" }
        guard ProcessTable.threads(caller) == 1 else { return "it has several threads" }
        return nil
    }
}
