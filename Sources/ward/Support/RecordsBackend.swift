import BuiltInPlugins
import WardCore
import WardRecords
import WardShell

extension SessionSetup {
    /// The records shell over the site's records (`[records]`, through `StoreBackend`).
    ///
    /// A PostgreSQL server is connected to now, before sign-on, so that an unreachable one stops
    /// Ward at once with exit 69 and a message naming its host and port, rather than after a
    /// password. Nothing clinical is read before sign-on: the connection holds no patient data yet.
    /// It is the one the site's users were checked on (`credentials`), which sign-on then uses.
    func recordsShell() throws -> Shell {
        try Shell(records: StoreBackend(records: policy.records, home: home), users: credentials)
    }
}

/// The backend the site's `[records]` table chooses for `home`: the one factory
/// (`StoreBackend`) that `ward demo`, `ward import`, `ward db migrate` and `ward audit report`
/// make their stores with.
func recordsBackend(global: GlobalOptions, home: WardHome) throws -> StoreBackend {
    try StoreBackend(records: SitePolicy.load(siteOption: global.site, plugins: pluginRegistry).records, home: home)
}

/// Where the site's live sessions are listed (`StoreBackend.sessionDirectory`): the home's files,
/// or, with the records on PostgreSQL, the server, which lists and reaches every host's.
func sessionDirectory(global: GlobalOptions, home: WardHome) throws -> any SessionDirectory {
    try recordsBackend(global: global, home: home).sessionDirectory()
}
