import Glibc

extension ExecProgram {
    /// The arguments after argv[0]: the site's `args`, then the user's, as `user-args` allows.
    ///
    /// An allowed program's arguments choose what it does: `sqlite3 -cmd '.shell bash'` is a
    /// shell, `sqlite3 /home/ward/records.sqlite` the records without a role check. So a site
    /// may fix them (`none`) or let the user name only files the sandbox would let the program
    /// open anyway (`files`), and the user hears why before any password is asked for.
    ///
    /// Under `files` each argument must not start with `-`, and must name, once symbolic links
    /// and `..` are resolved against the real file system, a path inside one of the program's
    /// `read` or `write` paths (themselves resolved the same way); a file that does not exist
    /// yet is allowed only inside a `write` path, in a directory that exists. The arguments are
    /// passed as typed: the sandbox's rules, not this check, hold when the program opens them.
    ///
    /// - Parameter workingDirectory: What a relative argument is relative to; the process's
    ///   own when nil.
    /// - Throws: `ExecRefusal.argumentNotAllowed` (77) naming the first argument refused and
    ///   the rule.
    public func commandLine(
        userArguments: [String],
        workingDirectory: String? = nil
    ) throws(ExecRefusal) -> [String] {
        switch rules.userArguments {
        case .any:
            break
        case .none:
            if let first = userArguments.first {
                throw .argumentNotAllowed(
                    program: name,
                    argument: first,
                    reason: "the site fixes \(name)'s arguments (user-args = \"none\"); run it without any."
                )
            }
        case .files:
            let directory = workingDirectory ?? Self.currentDirectory()
            for argument in userArguments { try checkFileArgument(argument, workingDirectory: directory) }
        }
        return rules.arguments + userArguments
    }

    private func checkFileArgument(_ argument: String, workingDirectory: String?) throws(ExecRefusal) {
        func refusal(_ reason: String) -> ExecRefusal {
            .argumentNotAllowed(program: name, argument: argument, reason: reason)
        }
        if argument.hasPrefix("-") {
            throw refusal("the site lets you add only names of files (user-args = \"files\"), not options.")
        }
        if argument.isEmpty || argument.contains("\0") { throw refusal("it is not the name of a file.") }
        let absolute: String
        if argument.hasPrefix("/") {
            absolute = argument
        } else if let workingDirectory {
            absolute = workingDirectory + "/" + argument
        } else {
            throw refusal("the current directory cannot be found, so a relative name means nothing.")
        }
        let readable = (rules.read + rules.write).map(Self.resolvedRule)
        let writable = rules.write.map(Self.resolvedRule)
        func allowed() -> String {
            "read = \(Self.listed(rules.read)), write = \(Self.listed(rules.write))"
        }
        if let target = Self.realPath(absolute) {
            guard readable.contains(where: { Self.path(target, isInside: $0) }) else {
                throw refusal(
                    "it is \(Sanitizer.line(target)), outside every path the site lets \(name) read or write "
                        + "(\(allowed()))."
                )
            }
            return
        }
        var info = stat()
        if lstat(absolute, &info) == 0 {
            throw refusal("it is a symbolic link to nothing, which would make a file wherever it points.")
        }
        let reason = errno
        guard reason == ENOENT else { throw refusal(String(cString: strerror(reason)) + ".") }
        var parent = Substring(absolute)
        while parent.count > 1, parent.hasSuffix("/") { parent = parent.dropLast() }
        let slash = parent.lastIndex(of: "/") ?? parent.startIndex
        let last = parent[parent.index(after: slash)...]
        parent = parent[..<slash]
        guard last != "..", last != ".", let directory = Self.realPath(parent.isEmpty ? "/" : String(parent)) else {
            throw refusal("no such file or directory.")
        }
        let target = (directory == "/" ? "" : directory) + "/" + last
        guard writable.contains(where: { Self.path(target, isInside: $0) }) else {
            throw refusal(
                "no such file, and the site lets \(name) make new files only inside its write paths "
                    + "(\(allowed()))."
            )
        }
    }

    /// `path` with `//`, `/./` and a trailing `/` dropped; `..` is left as it is.
    static func normalised(_ path: String) -> String {
        "/" + path.split(separator: "/").filter { $0 != "." }.joined(separator: "/")
    }

    /// Whether `path` is `directory` or lies beneath it; both absolute and normalised.
    static func path(_ path: String, isInside directory: String) -> Bool {
        directory == "/" || path == directory || path.hasPrefix(directory + "/")
    }

    /// A rule's path as the kernel will find it: through the symbolic links of the part of it
    /// that exists.
    static func resolvedRule(_ path: String) -> String { resolvedAsFarAsExists(path) }

    /// `path` (absolute) with the symbolic links of its longest existing ancestor resolved and
    /// the rest as written: where a file made there later would be.
    static func resolvedAsFarAsExists(_ path: String) -> String {
        var head = normalised(path)
        var rest: [Substring] = []
        while true {
            if let real = realPath(head) {
                return normalised(real + "/" + rest.reversed().joined(separator: "/"))
            }
            guard head != "/", let slash = head.lastIndex(of: "/") else { return normalised(path) }
            rest.append(head[head.index(after: slash)...])
            head = slash == head.startIndex ? "/" : String(head[..<slash])
        }
    }

    /// The path with every symbolic link and `..` resolved; nil when it does not exist.
    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    static func currentDirectory() -> String? {
        guard let directory = getcwd(nil, 0) else { return nil }
        defer { free(directory) }
        return String(cString: directory)
    }

    private static func listed(_ paths: [String]) -> String {
        "[" + paths.map { "\"\(Sanitizer.line($0))\"" }.joined(separator: ", ") + "]"
    }
}
