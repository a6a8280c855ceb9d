import WardCore

extension StoreBackend {
    /// The users who may sign on where these records are: the home's credential file beside its
    /// SQLite records (one host's users), or the site's database beside its shared records (one
    /// directory for every host, `PostgresUserDirectory`). Whoever shares the patients shares
    /// the users, their roles and their lockouts.
    ///
    /// - Throws: on PostgreSQL, `StoreError.unavailable` (69) or `SchemaError` (78), before
    ///   anyone is asked for a password.
    public func userDirectory(
        lockout: LockoutPolicy = LockoutPolicy(),
        authentication source: AuthSource = .ward,
        minimumPasswordLength: Int = 1
    ) throws -> any UserDirectory {
        switch self {
        case .sqlite(let home):
            return CredentialStore(
                home: home,
                minimumPasswordLength: minimumPasswordLength,
                lockout: lockout,
                authentication: source
            )
        case .postgresql(let settings):
            return try PostgresUserDirectory(
                settings: settings,
                lockout: lockout,
                authentication: source,
                minimumPasswordLength: minimumPasswordLength
            )
        }
    }
}
