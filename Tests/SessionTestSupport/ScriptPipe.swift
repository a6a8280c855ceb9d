import Glibc

/// The read end of a pipe that holds `text` and whose write end is closed: what a batch front end
/// reads its script or a password from (`ward --batch -`, `--password-fd`). The caller closes it.
/// The text must fit the pipe's buffer (64 KiB), as every script of the tests does.
public func pipeHolding(_ text: String) -> Int32 {
    var fds: [Int32] = [-1, -1]
    precondition(pipe(&fds) == 0)
    var bytes = Array(text.utf8)
    _ = write(fds[1], &bytes, bytes.count)
    close(fds[1])
    return fds[0]
}
