import Glibc

/// The line being typed into the program `ward exec` runs, rebuilt from the keys Ward relays,
/// so that plugins that check lines see each one before the key that would run it.
///
/// The program echoes and edits its own line; Ward only follows the keys: text is added,
/// Backspace, Ctrl-W and Ctrl-U take away, Ctrl-C starts over. A key that submits the line
/// (Enter, Ctrl-J, Ctrl-O, Ctrl-D after text, a paste holding a newline) is not relayed until
/// the line has passed the chain (`ExecFrontEnd`): the program never receives the key that would
/// run a refused line.
///
/// - Important: The rebuilt line is what was typed, not necessarily what the program runs:
///   a line recalled from the program's history or changed with the cursor keys or Tab is
///   passed as the keys typed. A check on lines is a guard for typed text, not a sandbox.
struct TypedLine {
    /// What a key does to the line.
    enum Step: Equatable {
        /// Relay the key now.
        case relay
        /// The key submits these lines (one, or several in a paste): relay it only once each has
        /// passed the chain, then `submitted()`; else `clear()`.
        case submit([String])
    }

    private(set) var bytes: [UInt8] = []
    /// What stays after the submitted lines (the text after a paste's last newline, or the line
    /// itself after Ctrl-D, which may leave it in the program's editor).
    private var rest: [UInt8] = []

    var text: String { String(decoding: bytes, as: UTF8.self) }

    mutating func take(_ key: KeyPress) -> Step {
        if key.isPaste { return takePaste(key.bytes) }
        let b = key.bytes
        guard b.count == 1 else {
            if !b.isEmpty, b.allSatisfy({ $0 >= 0x20 && $0 != 0x7F }) { bytes += b }  // a UTF-8 character
            return .relay  // an escape sequence: the program's to act on
        }
        switch b[0] {
        case 0x0D, 0x0A, 0x0F:  // Enter, Ctrl-J, Ctrl-O (readline's operate-and-get-next)
            rest = []
            return .submit([text])
        case 0x04 where !bytes.isEmpty:
            // Ctrl-D after text: a canonical-mode program reads the line as it is; readline
            // deletes a character and keeps it. Checked now, and kept, so it is checked again.
            rest = bytes
            return .submit([text])
        case 0x7F, 0x08:
            dropLastCharacter()
        case 0x15, 0x03:  // Ctrl-U, Ctrl-C
            clear()
        case 0x17:  // Ctrl-W: the word before the cursor, and the spaces after it
            while let last = bytes.last, last == 0x20 { bytes.removeLast() }
            while let last = bytes.last, last != 0x20 { bytes.removeLast() }
        case 0x20...0x7E:
            bytes.append(b[0])
        default:
            break
        }
        return .relay
    }

    private mutating func takePaste(_ key: [UInt8]) -> Step {
        // The paste's body, without its brackets (`ESC[200~` … `ESC[201~`), which the program gets too.
        var paste = key[...]
        if paste.starts(with: KeyDecoder.pasteStart) { paste = paste.dropFirst(KeyDecoder.pasteStart.count) }
        if paste.suffix(KeyDecoder.pasteEnd.count).elementsEqual(KeyDecoder.pasteEnd) {
            paste = paste.dropLast(KeyDecoder.pasteEnd.count)
        }
        guard paste.contains(where: { $0 == 0x0D || $0 == 0x0A }) else {
            bytes += paste
            return .relay
        }
        var lines: [[UInt8]] = []
        var current = bytes
        var i = paste.startIndex
        while i < paste.endIndex {
            let c = paste[i]
            if c == 0x0D || c == 0x0A {
                lines.append(current)
                current = []
                if c == 0x0D, i + 1 < paste.endIndex, paste[i + 1] == 0x0A { i += 1 }
            } else {
                current.append(c)
            }
            i += 1
        }
        rest = current
        return .submit(lines.map { String(decoding: $0, as: UTF8.self) })
    }

    /// The submitted lines passed and the key was relayed: the line starts again.
    mutating func submitted() {
        explicit_bzero(&bytes, bytes.count)
        bytes = rest
        rest = []
    }

    /// Forgets the line (the program was told to drop it, or Ctrl-U).
    mutating func clear() {
        wipe()
    }

    /// Zeroes what it held: a lock leaves no typed text in memory.
    mutating func wipe() {
        explicit_bzero(&bytes, bytes.count)
        explicit_bzero(&rest, rest.count)
        bytes = []
        rest = []
    }

    /// Removes the last UTF-8 character.
    private mutating func dropLastCharacter() {
        while let last = bytes.popLast(), last & 0xC0 == 0x80 {}
    }
}
