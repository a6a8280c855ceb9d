import PostgresNIO

extension PostgresSchema {
    /// What a session needs of the site's users, for `grantSessionPrivileges`: to read them
    /// without their hashes (`ward user list`, the name a failed sign-on announces) and to sign
    /// them on through the two functions; no INSERT, UPDATE or DELETE. A session's role that
    /// could write `ward_user` could give itself a user, or lift a lock.
    static func siteUserGrants(to who: String, schema: String) -> [String] {
        [
            "REVOKE ALL ON ALL FUNCTIONS IN SCHEMA \(schema) FROM \(who)",
            "GRANT SELECT (\(PostgresSiteUsers.readableColumns.joined(separator: ", "))) ON ward_user TO \(who)",
        ] + PostgresSiteUsers.functions.map { "GRANT EXECUTE ON FUNCTION \($0) TO \(who)" }
    }

    /// What `role` may do to the site's users beyond a session's needs, or lacks of them; nil
    /// when it is exactly right. As `sessionPrivilegeProblem`, asked of the server.
    static func siteUserPrivilegeProblem(_ link: PostgresLink, role: String) throws -> String? {
        let rows = try link.query(
            """
            SELECT
                (SELECT string_agg(t, ', ' ORDER BY t) FROM unnest(\(PostgresSiteUsers.tables)::text[]) AS t
                    WHERE has_table_privilege(\(role), t, 'INSERT, UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER')
                       OR (t <> 'ward_user' AND has_table_privilege(\(role), t, 'SELECT'))),
                has_column_privilege(\(role), 'ward_user', 'password_hash', 'SELECT'),
                has_column_privilege(\(role), 'ward_user', 'locked_until', 'SELECT'),
                has_function_privilege(\(role), \(PostgresSiteUsers.functions[0]), 'EXECUTE')
                    AND has_function_privilege(\(role), \(PostgresSiteUsers.functions[1]), 'EXECUTE')
            """
        )
        let (excess, readsHashes, readsUsers, signsOn) = try PostgresLink.decoded {
            try rows[0].decode((String?, Bool, Bool, Bool).self)
        }
        if let excess {
            return "it may still read or change \(excess) beyond signing users on (granted by another role, or to "
                + "PUBLIC); revoke that as the grantor"
        }
        if readsHashes {
            return "it may still read ward_user.password_hash (granted by another role, or to PUBLIC); "
                + "revoke that as the grantor"
        }
        if !readsUsers || !signsOn {
            return "it was not given SELECT on ward_user and EXECUTE on the sign-on functions; "
                + "run this as the tables' owner"
        }
        return nil
    }
}
