import ArgumentParser
import Glibc
import WardCore

/// Reads a new password for `ward user add` and `passwd`: asked twice on the terminal without
/// echo, or taken from the first line of standard input.
///
/// The terminal is `/dev/tty`, not standard input, so `ward user add x < file` still asks the
/// person. Bytes go straight into one preallocated buffer that `Password` clears; the password
/// is never a `String`.
enum PasswordInput {
    /// Reads the password once from standard input, or twice from the terminal (they must match).
    static func readNew(fromStandardInput: Bool, prompt: String) throws -> Password {
        if fromStandardInput { return try PasswordSource.readLine(from: STDIN_FILENO) }
        let first = try ask(prompt)
        let second = try ask("Retype the password: ")
        guard first.matches(second) else { throw AuthError.passwordMismatch }
        return first
    }

    /// Asks on `/dev/tty` with echo off, reading key by key: Backspace erases, Ctrl-U starts
    /// again, Enter ends, Ctrl-D on an empty line gives up, Ctrl-C exits 130. The terminal's
    /// settings are restored whatever happens (short of SIGKILL).
    static func ask(_ prompt: String) throws -> Password {
        let tty = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard tty >= 0 else { throw AuthError.noTerminal }
        defer { close(tty) }
        var saved = termios()
        guard tcgetattr(tty, &saved) == 0 else { throw AuthError.noTerminal }
        var quiet = saved
        // No echo, key by key, and Ctrl-C as a byte so the settings are restored before exiting.
        quiet.c_lflag &= ~tcflag_t(ECHO | ICANON | ISIG | IEXTEN)
        withUnsafeMutableBytes(of: &quiet.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        guard tcsetattr(tty, TCSAFLUSH, &quiet) == 0 else { throw AuthError.noTerminal }
        defer { tcsetattr(tty, TCSAFLUSH, &saved) }

        write(tty, prompt)
        var bytes = newBuffer()
        var byte: UInt8 = 0
        defer { byte = 0 }
        while true {
            let n = read(tty, &byte, 1)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 {
                Password.zeroize(&bytes)
                write(tty, "\n")
                throw AuthError.noPassword
            }
            switch byte {
            case UInt8(ascii: "\r"), UInt8(ascii: "\n"):
                write(tty, "\n")
                return Password(bytes: bytes)
            case 0x7f, 0x08:  // Backspace: one character, however many UTF-8 bytes it took
                while let last = bytes.last, last & 0xC0 == 0x80 { bytes.removeLast() }
                if !bytes.isEmpty { bytes.removeLast() }
            case 0x15:  // Ctrl-U
                Password.zeroize(&bytes)
                bytes.removeAll(keepingCapacity: true)
            case 0x03:  // Ctrl-C
                Password.zeroize(&bytes)
                write(tty, "\n")
                throw CommandLineError.interrupted
            case 0x04 where bytes.isEmpty:  // Ctrl-D
                write(tty, "\n")
                throw AuthError.noPassword
            default:
                if bytes.count >= CredentialStore.maximumPasswordLength {
                    Password.zeroize(&bytes)
                    write(tty, "\n")
                    throw AuthError.passwordTooLong(maximum: CredentialStore.maximumPasswordLength)
                }
                bytes.append(byte)
            }
        }
    }

    /// Capacity for the longest password up front: an array that grows leaves its old buffers,
    /// with the first characters in them, to `free` (which the executable scrubs, but better
    /// not to rely on one defence).
    private static func newBuffer() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(CredentialStore.maximumPasswordLength + 1)
        return bytes
    }

    private static func write(_ fd: Int32, _ text: String) {
        var text = text
        text.withUTF8 { buffer in _ = Glibc.write(fd, buffer.baseAddress, buffer.count) }
    }
}
