/// The site's users in the shared database (migration `8-site-users`): one directory for every
/// host, read and written by `PostgresUserDirectory`.
///
/// `ward_user` holds what the home's credential file holds (`CredentialFile`), a column a field.
/// Sessions connect as a role that may not write it, nor read `password_hash`: every sign-on goes
/// through two functions that run as the tables' owner (`SECURITY DEFINER`):
///
/// 1. `ward_sign_on_start(name, now)` takes the name's advisory lock for the rest of the
///    transaction, and returns the account's state; the hash only of that one account, only
///    when it is neither locked nor disabled (the check must run on the host: PostgreSQL has no
///    scrypt).
/// 2. Ward checks the password (scrypt, or PAM), then `ward_sign_on_finish(name, accepted, …)`
///    records the outcome under the same lock: a wrong password counts toward the lock, a right
///    one ends the count (and, at sign-on, replaces the last sign-on).
///
/// The lock is what makes the count atomic across hosts: a second guesser's `start` waits until
/// the first one's transaction has recorded its failure, so parallel guessers on two hosts never
/// both read "0 failures". Wrong sign-ons under names no user has are counted in
/// `ward_unknown_name`, under a keyed SHA-256 of the name (the key in `ward_unknown_name_key`,
/// which only the owner reads), as `UnknownNameCounts` keeps them in a home.
///
/// Both functions pin their `search_path` to `pg_catalog`, the schema they were made in, then
/// `pg_temp`: otherwise a session could shadow `ward_user` with a temporary table of its own
/// and have the owner's function read it.
enum PostgresSiteUsers {
    /// The tables the migration makes; the session role may read only `ward_user`, and not its
    /// hashes (`PostgresSchema.grantSessionPrivileges`).
    static let tables = ["ward_user", "ward_unknown_name", "ward_unknown_name_key"]

    /// The columns of `ward_user` a session may read: all but `password_hash`.
    static let readableColumns = [
        "name", "role", "ward_password", "last_sign_on", "last_tty", "failed_attempts", "consecutive_failures",
        "locked_until", "disabled",
    ]

    /// The two functions a session calls, as `GRANT EXECUTE` names them.
    static let functions = [
        "ward_sign_on_start(text, bigint)",
        "ward_sign_on_finish(text, boolean, bigint, text, integer, bigint, boolean)",
    ]

    /// The key of each name's `pg_advisory_xact_lock(key, hashtext(name))`: "ward" in ASCII, as
    /// the migrations' lock (a two-key lock is apart from their one-key one). Two names whose
    /// hashes collide only wait for each other.
    static let lockKey: Int32 = 0x7761_7264

    /// Migration `8-site-users`.
    static let migration: [String] = [
        """
        CREATE TABLE ward_user (
            name text COLLATE "C" PRIMARY KEY,
            role text NOT NULL,
            password_hash text,
            ward_password boolean GENERATED ALWAYS AS (password_hash IS NOT NULL) STORED,
            last_sign_on bigint,
            last_tty text,
            failed_attempts integer NOT NULL DEFAULT 0,
            consecutive_failures integer NOT NULL DEFAULT 0,
            locked_until bigint,
            disabled boolean NOT NULL DEFAULT false
        )
        """,
        """
        CREATE TABLE ward_unknown_name (
            digest bytea PRIMARY KEY,
            consecutive_failures integer NOT NULL,
            locked_until bigint,
            last_failure bigint NOT NULL
        )
        """,
        "CREATE TABLE ward_unknown_name_key (key bytea NOT NULL)",
        // gen_random_uuid draws on the server's strong random source: 244 random bits here.
        """
        INSERT INTO ward_unknown_name_key
            VALUES (sha256(convert_to(gen_random_uuid()::text || gen_random_uuid()::text, 'UTF8')))
        """,
        """
        CREATE FUNCTION ward_sign_on_start(who text, now_ bigint)
        RETURNS TABLE (known boolean, user_role text, hash text, is_disabled boolean, lock_ends bigint)
        LANGUAGE plpgsql SECURITY DEFINER
        AS $$
        DECLARE
            u ward_user%ROWTYPE;
        BEGIN
            PERFORM pg_advisory_xact_lock(\(lockKey), hashtext(who));
            SELECT * INTO u FROM ward_user WHERE ward_user.name = who;
            IF FOUND THEN
                RETURN QUERY SELECT true, u.role,
                    CASE WHEN u.disabled OR coalesce(u.locked_until, 0) > now_ THEN NULL ELSE u.password_hash END,
                    u.disabled, CASE WHEN u.locked_until > now_ THEN u.locked_until END;
            ELSE
                RETURN QUERY SELECT false, NULL::text, NULL::text, false,
                    (SELECT n.locked_until FROM ward_unknown_name n
                     WHERE n.digest = sha256((SELECT k.key FROM ward_unknown_name_key k) || convert_to(who, 'UTF8'))
                       AND n.locked_until > now_);
            END IF;
        END
        $$
        """,
        """
        CREATE FUNCTION ward_sign_on_finish(
            who text, accepted boolean, now_ bigint, tty text, max_failed integer, lockout_seconds bigint,
            signs_on boolean
        )
        RETURNS TABLE (
            outcome text, user_role text, previous_time bigint, previous_tty text, failures integer, lock_ends bigint
        )
        LANGUAGE plpgsql SECURITY DEFINER
        AS $$
        DECLARE
            u ward_user%ROWTYPE;
            d bytea;
        BEGIN
            PERFORM pg_advisory_xact_lock(\(lockKey), hashtext(who));
            SELECT * INTO u FROM ward_user WHERE ward_user.name = who;
            IF NOT FOUND THEN
                IF NOT accepted THEN
                    d := sha256((SELECT k.key FROM ward_unknown_name_key k) || convert_to(who, 'UTF8'));
                    DELETE FROM ward_unknown_name
                    WHERE coalesce(locked_until, 0) <= now_ AND last_failure <= now_ - lockout_seconds;
                    INSERT INTO ward_unknown_name VALUES (d, 0, NULL, now_) ON CONFLICT (digest) DO NOTHING;
                    UPDATE ward_unknown_name SET
                        locked_until = CASE WHEN consecutive_failures + 1 >= max_failed THEN now_ + lockout_seconds
                                            WHEN locked_until <= now_ THEN NULL ELSE locked_until END,
                        consecutive_failures = CASE WHEN consecutive_failures + 1 >= max_failed THEN 0
                                                    ELSE consecutive_failures + 1 END,
                        last_failure = now_
                    WHERE digest = d;
                END IF;
                RETURN QUERY SELECT 'wrong'::text, NULL::text, NULL::bigint, NULL::text, NULL::integer, NULL::bigint;
                RETURN;
            END IF;
            IF u.disabled THEN
                RETURN QUERY SELECT 'disabled'::text, u.role, NULL::bigint, NULL::text, NULL::integer, NULL::bigint;
                RETURN;
            END IF;
            IF u.locked_until > now_ THEN
                RETURN QUERY SELECT 'locked'::text, u.role, NULL::bigint, NULL::text, NULL::integer, u.locked_until;
                RETURN;
            END IF;
            IF NOT accepted THEN
                UPDATE ward_user SET
                    locked_until = CASE WHEN consecutive_failures + 1 >= max_failed THEN now_ + lockout_seconds END,
                    consecutive_failures = CASE WHEN consecutive_failures + 1 >= max_failed THEN 0
                                                ELSE consecutive_failures + 1 END,
                    failed_attempts = failed_attempts + 1
                WHERE name = who;
                RETURN QUERY SELECT 'wrong'::text, u.role, NULL::bigint, NULL::text, NULL::integer, NULL::bigint;
                RETURN;
            END IF;
            IF signs_on THEN
                UPDATE ward_user SET locked_until = NULL, consecutive_failures = 0, failed_attempts = 0,
                    last_sign_on = now_, last_tty = tty
                WHERE name = who;
            ELSE
                UPDATE ward_user SET locked_until = NULL, consecutive_failures = 0 WHERE name = who;
            END IF;
            RETURN QUERY SELECT 'accepted'::text, u.role, u.last_sign_on, u.last_tty, u.failed_attempts, NULL::bigint;
        END
        $$
        """,
        """
        DO $$
        BEGIN
            EXECUTE format('ALTER FUNCTION ward_sign_on_start(text, bigint) SET search_path = pg_catalog, %I, pg_temp',
                current_schema());
            EXECUTE format('ALTER FUNCTION ward_sign_on_finish(text, boolean, bigint, text, integer, bigint, boolean) '
                || 'SET search_path = pg_catalog, %I, pg_temp', current_schema());
        END
        $$
        """,
        // New functions are anyone's to call (PUBLIC); these only the session role's, by grant.
        "REVOKE EXECUTE ON FUNCTION ward_sign_on_start(text, bigint) FROM PUBLIC",
        "REVOKE EXECUTE ON FUNCTION ward_sign_on_finish(text, boolean, bigint, text, integer, bigint, boolean) FROM PUBLIC",
    ]
}
