import ArgumentParser
import WardCore
import WardRecords

extension Ward {
    /// `ward user add|passwd|remove|list|unlock|disable`: manages the credential store in the Ward
    /// home, or, when the site's records are on PostgreSQL, the site's users in that database.
    ///
    /// Whoever can write the home can already replace the store, so these commands ask for no
    /// Ward password: the file permissions (0700 home, 0600 store) are the access control. On
    /// PostgreSQL the database's grants are: the sessions' role may list the users, and only
    /// the tables' owner may change them (`AuthError.directoryReadOnly`).
    /// Passwords come from a no-echo prompt on the terminal or one line of standard input
    /// (`--password-stdin`), never from the command line or the environment, where `ps` and
    /// `/proc/PID/environ` would show them.
    struct User: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "user",
            abstract: "Add, change, remove, list, disable and unlock the users who may sign on.",
            subcommands: [Add.self, Passwd.self, Remove.self, List.self, Unlock.self, Disable.self]
        )
    }
}

extension Ward.User {
    /// The shortest password `ward user add` and `passwd` accept.
    static let minimumPasswordLength = 8

    /// The credential store in the home that `global` names. `create`: make the home (0700)
    /// when it is missing, as `add` does; otherwise a missing home means there are no users.
    static func store(_ global: GlobalOptions, create: Bool = false) throws -> any UserDirectory {
        try open(global, create: create).store
    }

    /// The home and its credential store, as `store(_:create:)`: the administrative commands
    /// need the home too, for their audit record (`AdministrativeAudit`).
    static func open(
        _ global: GlobalOptions,
        create: Bool = false
    ) throws -> (home: WardHome, store: any UserDirectory) {
        let path = WardHome.resolvePath(option: global.home)
        let home: WardHome
        do throws(FileSecurityError) {
            home = try WardHome.open(option: path, create: create)
        } catch .notFound {
            throw AuthError.noStore(path: WardHome(path: path).credentialsPath)
        } catch {
            throw AuthError.file(error)
        }
        // The home's file, or the site's database when the records are there.
        let directory = try recordsBackend(global: global, home: home)
            .userDirectory(minimumPasswordLength: minimumPasswordLength)
        return (home, directory)
    }

    /// The user named `name`, or nil, where no store at all yet means nobody (the first `add`).
    static func existing(_ name: String, in store: any UserDirectory) throws(AuthError) -> UserRecord? {
        do throws(AuthError) {
            return try store.user(named: name)
        } catch .noStore {
            return nil
        }
    }
}
