import ArgumentParser

extension Ward {
    /// `ward db migrate`: the records database, for the administrator who installs or upgrades
    /// Ward.
    struct Db: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "db",
            abstract: "Create or upgrade the records database.",
            discussion: """
                The site's records are the home's own SQLite file, or the PostgreSQL database of \
                the site's [records]. 'migrate' creates their schema or brings it up to date; a \
                session on PostgreSQL never does, and stops until it has run.
                """,
            subcommands: [Migrate.self]
        )
    }
}
