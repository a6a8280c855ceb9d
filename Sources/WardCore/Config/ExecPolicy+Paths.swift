extension ExecPolicy {
    /// What only the file system can tell of the `read`, `write` and `may-run` paths, for
    /// `ward config check`.
    ///
    /// Landlock can only allow, never deny within what it allowed: a `read` of a directory that
    /// holds the Ward home would let the program read the credential store and the audit log
    /// whatever else the sandbox says. So a path that is, holds or lies inside the home, the
    /// site file, the user file or an audit log kept elsewhere is an error, compared both as written and with its symbolic
    /// links resolved. A `may-run` program that is not installed is an error here too, but a
    /// session does not check it: the program's own attempt to start it fails, and every other
    /// program still runs, so an uninstalled helper does not lock every user out.
    ///
    /// - Parameters:
    ///   - home: The Ward home the sessions would use.
    ///   - userFile: The user file's path, if there is one.
    ///   - auditLog: The audit log's path when the site keeps it outside the home.
    public func pathProblems(
        home: String,
        userFile: String?,
        auditLog: String? = nil,
        isExecutable: (String) -> Bool = ExecPolicy.isExecutable
    ) -> [ConfigError] {
        var guarded = [(what: "the Ward home", path: home), (what: "the site file", path: file)]
        if let userFile { guarded.append((what: "the user file", path: userFile)) }
        if let auditLog, Self.relation(of: auditLog, to: home) == nil {
            guarded.append((what: "the audit log", path: auditLog))
        }
        var problems: [ConfigError] = []
        for setting in pathSettings {
            let written = PluginSettings.Value.string(setting.path).description
            if setting.key == "may-run", !isExecutable(setting.path) {
                problems.append(
                    .conflict(
                        file: file,
                        line: setting.line,
                        message: "'may-run' holds \(written), which is not an executable file here: the program's "
                            + "attempts to start it will fail. Install it, or remove it from may-run."
                    )
                )
            }
            for (what, path) in guarded {
                guard let relation = Self.relation(of: setting.path, to: path) else { continue }
                problems.append(
                    .conflict(
                        file: file,
                        line: setting.line,
                        message: "'\(setting.key)' holds \(written), which \(relation) \(what) "
                            + "\(Sanitizer.line(path)): a wrapped program never reaches the Ward home, the site "
                            + "file, the user file or the audit log, so list paths beside them instead."
                    )
                )
            }
        }
        return problems
    }

    /// How `entry` and `guarded` overlap, as words for a message: "is", "holds", "lies inside";
    /// nil when they do not. Each is compared as written (made absolute) and as resolved.
    static func relation(of entry: String, to guarded: String) -> String? {
        let absolute = guarded.hasPrefix("/") ? guarded : (ExecProgram.currentDirectory() ?? "") + "/" + guarded
        let entries = [ExecProgram.normalised(entry), ExecProgram.resolvedAsFarAsExists(entry)]
        let guards = [ExecProgram.normalised(absolute), ExecProgram.resolvedAsFarAsExists(absolute)]
        for e in entries {
            for g in guards {
                if e == g { return "is" }
                if ExecProgram.path(g, isInside: e) { return "holds" }
                if ExecProgram.path(e, isInside: g) { return "lies inside" }
            }
        }
        return nil
    }
}
