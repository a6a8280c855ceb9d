import ArgumentParser
import AuditLog
import BuiltInPlugins
import WardCore
import WardRecords

extension Ward.Db {
    /// `ward db migrate`: creates the records schema, or applies the migrations this Ward has and
    /// the database lacks, on the site's backend, and prints what it did.
    ///
    /// A separate command, not a side effect of connecting, because on PostgreSQL one database
    /// serves every host: a migration locks tables the other hosts' sessions read, and the user
    /// sessions connect as should need no right to create them. So a session refuses an
    /// unmigrated database (`SchemaError`, exit 78), and this command refuses to migrate while
    /// Ward sessions are connected (exit 75) unless `--force`. On SQLite, sessions still migrate
    /// the home's file as they open it (one host); this command is the same step on purpose.
    ///
    /// Audited as an administrative command (`db-migrate`), after the log has been opened, so a
    /// log that cannot be written stops it before anything changes.
    struct Migrate: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "migrate",
            abstract: "Create the records schema, or bring it up to date.",
            discussion: """
                On PostgreSQL, needs CREATE on the database's schema; refused (exit 75) while \
                other Ward sessions are connected and there is something to apply, unless --force. \
                Prints the schema's version and what was applied. Run it as the tables' owner, \
                with --session-role naming the role the site file's url connects as.
                """
        )

        @OptionGroup var global: GlobalOptions

        @Flag(
            help: ArgumentHelp(
                "Migrate even while Ward sessions are connected.",
                discussion: "Their statements wait for the migration's locks, and may fail at their statement-timeout."
            )
        )
        var force = false

        @Option(
            help: ArgumentHelp(
                "Leave this PostgreSQL role able to do what sessions do, and nothing else.",
                discussion: """
                    Read the records and add notes: no UPDATE or DELETE, no DDL. Whatever else it held \
                    on the schema is revoked. It must exist, and not be the owner or a superuser.
                    """,
                valueName: "role"
            )
        )
        var sessionRole: String?

        func validate() throws {
            if let sessionRole, sessionRole.isEmpty || sessionRole.contains(where: \.isNewline) {
                throw ValidationError("--session-role takes the name of a PostgreSQL role, as CREATE ROLE made it.")
            }
        }

        func run() throws {
            let policy = try SitePolicy.load(siteOption: global.site, plugins: pluginRegistry)
            let home = try WardHome.open(option: global.home)
            let records = policy.records
            if sessionRole != nil, records.backend != .postgresql {
                throw ValidationError(
                    "--session-role is for records on PostgreSQL ([records] backend = \"postgresql\"); "
                        + "the home's SQLite file has no roles."
                )
            }
            // Its records stay in the home's file: the database's audit table may not exist yet.
            let audit = try AdministrativeAudit.open(global: global, home: home, sendingToDatabase: false)
            let backend = try StoreBackend(records: records, home: home)
            let database = backend.database
            var result: SchemaMigration?
            try audit.recording(
                {
                    .dbMigrate(
                        backend: records.backend.rawValue,
                        database: database,
                        forced: force,
                        version: result?.version,
                        applied: result?.applied ?? [],
                        sessionRole: sessionRole,
                        by: audit.unixUser,
                        status: $0
                    )
                },
                change: { result = try backend.migrateSchema(force: force, sessionRole: sessionRole) }
            )
            if let result { print("\(Sanitizer.line(database)): \(result.summary)") }
        }
    }
}
