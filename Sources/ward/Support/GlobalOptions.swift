import ArgumentParser

/// `--home` and `--site`: every subcommand takes them (the CLI contract in man/ward.1).
struct GlobalOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The Ward home: records, credentials, audit log.",
            discussion: "Default: $WARD_HOME, else $XDG_DATA_HOME/ward (~/.local/share/ward).",
            valueName: "dir"
        ),
        completion: .directory
    )
    var home: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The site policy file.",
            discussion: "Default: $WARD_SITE, else /etc/ward/site.toml, else built-in defaults.",
            valueName: "file"
        ),
        completion: .file()
    )
    var site: String?
}
