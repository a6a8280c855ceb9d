import BuiltInPlugins
import WardCore
import WardRecords
import WardShell

extension SessionSetup {
    /// The records shell over the site's records (`[records]`): the home's SQLite file, or the
    /// site's PostgreSQL database.
    ///
    /// The server is connected to now, before sign-on, so that an unreachable one stops Ward at
    /// once with exit 69 and a message naming its host and port, rather than after a password.
    /// Nothing clinical is read before sign-on: the connection holds no patient data yet.
    func recordsShell() throws -> Shell {
        let records = policy.records
        guard records.backend == .postgresql, let url = records.url else { return Shell(recordsHome: home.path) }
        return Shell(store: try PostgresRecordStore(settings: PostgresSettings(policy: records, url: url)))
    }
}

/// The site's shared records store when its records are on PostgreSQL (`[records] backend =
/// "postgresql"`), connected, its schema checked (`ward db migrate` makes it); nil when they are
/// the home's own SQLite file.
///
/// For `ward demo` and `ward import`, which then load the shared database rather than a file
/// no session of the site would read. An unreachable server stops them with exit 69 naming its
/// host and port, before anything is read or generated.
func sharedRecordsStore(global: GlobalOptions) throws -> PostgresRecordStore? {
    let records = try SitePolicy.load(siteOption: global.site, plugins: pluginRegistry).records
    guard records.backend == .postgresql, let url = records.url else { return nil }
    return try PostgresRecordStore(settings: PostgresSettings(policy: records, url: url))
}
