import Glibc

/// What the kernel runs when it runs a file: the file, and the interpreter it names (an ELF
/// program's dynamic loader, a script's `#!` line), which Landlock must let it execute too.
enum ProgramFile {
    /// `path`'s interpreters, nearest first: `/bin/sh` then `/lib64/ld-linux-x86-64.so.2` for a
    /// shell script; the loader alone for a dynamically linked program; none for a static one or a
    /// file that cannot be read.
    static func interpreters(of path: String) -> [String] {
        var found: [String] = []
        var next = interpreter(of: path)
        while let current = next, found.count < 4, !found.contains(current) {
            found.append(current)
            next = interpreter(of: current)
        }
        return found
    }

    /// The interpreter `path` names directly, if any.
    static func interpreter(of path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var head = [UInt8](repeating: 0, count: 256)
        let count = head.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard count > 4 else { return nil }
        if head[0] == UInt8(ascii: "#"), head[1] == UInt8(ascii: "!") {
            return shebang(head[2..<count])
        }
        if head[0..<4].elementsEqual([0x7F, 0x45, 0x4C, 0x46]), count >= 64 { return elfInterpreter(fd, head) }
        return nil
    }

    /// The first word of a `#!` line: `/usr/bin/perl` of `#! /usr/bin/perl -w`.
    private static func shebang(_ rest: ArraySlice<UInt8>) -> String? {
        let line = rest.prefix { $0 != UInt8(ascii: "\n") }
        let word = line.drop { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
            .prefix { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }
        guard word.first == UInt8(ascii: "/") else { return nil }
        return String(decoding: word, as: UTF8.self)
    }

    /// PT_INTERP of a 64-bit little-endian ELF file (the only kind Ward's exec filter lets run).
    private static func elfInterpreter(_ fd: Int32, _ head: [UInt8]) -> String? {
        guard head[4] == 2, head[5] == 1 else { return nil }
        func number(_ bytes: ArraySlice<UInt8>) -> Int {
            bytes.reversed().reduce(0) { $0 << 8 | Int($1) }
        }
        let tableOffset = number(head[0x20..<0x28])
        let entrySize = number(head[0x36..<0x38])
        let entries = number(head[0x38..<0x3A])
        guard entrySize >= 0x28, entries <= 256, tableOffset > 0 else { return nil }
        var table = [UInt8](repeating: 0, count: entrySize * entries)
        let read = table.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, off_t(tableOffset)) }
        guard read == table.count else { return nil }
        for i in 0..<entries {
            let entry = table[(i * entrySize)..<((i + 1) * entrySize)]
            let start = entry.startIndex
            guard number(entry[start..<(start + 4)]) == 3 else { continue }  // PT_INTERP
            let offset = number(entry[(start + 8)..<(start + 16)])
            let size = number(entry[(start + 0x20)..<(start + 0x28)])
            guard size > 1, size <= 4096 else { return nil }
            var name = [UInt8](repeating: 0, count: size)
            let got = name.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, off_t(offset)) }
            guard got == size else { return nil }
            return String(decoding: name.prefix { $0 != 0 }, as: UTF8.self)
        }
        return nil
    }
}
