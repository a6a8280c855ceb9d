import Glibc

/// Reads what the terminal holds and decodes it into keys, for the front ends a person types
/// at. The bytes read are zeroed as soon as they are decoded: they may be a note or an MRN.
struct KeyReader {
    enum Read {
        /// Keys (and focus changes); `moreComing`: the read filled the buffer, so more is waiting.
        case keys([KeyDecoder.Output], moreComing: Bool)
        /// Nothing this time (interrupted, or not ready).
        case nothing
        /// The terminal is gone (EOF or EIO: a closed pane, a dropped SSH connection).
        case closed
    }

    private var decoder = KeyDecoder()
    private var buffer = [UInt8](repeating: 0, count: 4096)

    /// When a held escape key is due to be handed on (`KeyDecoder.escapeTimeout`).
    var pendingDeadline: Instant? { decoder.pendingDeadline }

    mutating func read(_ fd: Int32, at now: Instant) -> Read {
        let n = Glibc.read(fd, &buffer, buffer.count)
        if n < 0, errno == EINTR || errno == EAGAIN { return .nothing }
        guard n > 0 else { return .closed }
        let outputs = decoder.decode(buffer[0..<n], at: now)
        explicit_bzero(&buffer, n)
        // A read returns all the terminal holds, up to the buffer: only a full one says more is
        // waiting. (A poll would tell as much, at one more system call for every key.)
        return .keys(outputs, moreComing: n == buffer.count)
    }

    /// A held escape key whose time has come, as a key.
    mutating func flush(at now: Instant) -> [KeyDecoder.Output] { decoder.flush(at: now) }

    mutating func wipe() {
        decoder.wipe()
        explicit_bzero(&buffer, buffer.count)
    }
}
