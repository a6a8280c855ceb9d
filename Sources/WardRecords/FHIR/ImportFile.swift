import Glibc

/// Opens an import input for reading: a regular file, or nothing.
///
/// `O_NONBLOCK` for the open, so a FIFO nobody writes to is refused at once instead of blocking
/// the import forever; then the descriptor is checked (`fstat`, after any symbolic link was
/// followed) and a FIFO, a device (`/dev/zero`, which never ends) or a socket is refused, naming
/// the file: exit 66. The flag is cleared again for the reads, which then wait as usual.
enum ImportFile {
    static func open(_ path: String) throws -> Int32 {
        let descriptor = Glibc.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw StoreError.unreadable(path: path) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            close(descriptor)
            throw StoreError.unreadable(path: path)
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            throw StoreError.notRegularFile(path: path)
        }
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
        return descriptor
    }

    /// Whether `path` (its links followed) is a regular file; false when it is missing too.
    static func isRegular(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
    }
}
