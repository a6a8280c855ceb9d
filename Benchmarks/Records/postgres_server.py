#!/usr/bin/env python3
"""A private PostgreSQL 15 for the records benchmarks (issue 17), kept between runs.

Usage:
  postgres_server.py start --dir DIR [--port N]   initdb DIR/data the first time, then start it
  postgres_server.py stop  --dir DIR              stop it (the data stays for the next run)
  postgres_server.py url   --dir DIR              print the socket and loopback URLs
  postgres_server.py load  --dir DIR --from HOME --ward PATH
                                                  copy a `ward demo` home's records.sqlite into it

The server listens on a Unix socket in DIR and on 127.0.0.1:PORT (default 55432). Socket
connections are trusted; loopback connections need the password in DIR/password (0600, for a
site's `password-file`). As root, every server program runs as the `postgres` system user (the
Debian package's) through runuser, as the tests' PostgresServer does; DIR is then that user's.

`load` makes the schema the way a site does, by `ward db migrate` (then one `ward --batch`
against the server, as a check that a session signs on), then copies every table of the SQLite home with
COPY, secondary indexes and constraints dropped during the copy and made again after it, and
fills `patient_name_token` with the words of each patient's names, split and folded as
`PatientSearch.tokens` splits them. Loading 1,000,000 demo patients takes several minutes; the
data directory is kept, so later runs only `start`.
"""
import argparse, os, pwd, sqlite3, subprocess, sys, tempfile, time, unicodedata

BIN = "/usr/lib/postgresql/15/bin"
USER = "ward_bench"
DATABASE = "ward"
DEFAULT_PORT = 55432
RUN_AS = "postgres" if os.getuid() == 0 else None

# The site the `load` step runs Ward with; the batch benchmark writes its own.
SITE = """[session]
idle-timeout = "15m"

[[plugin]]
name = "idle-timer"

[[plugin]]
name = "audit-log"

[records]
backend = "postgresql"
url = "{url}"
statement-timeout = "10m"
"""


def server(argv, **kwargs):
    """Runs a server program, as the `postgres` user when we are root."""
    command = [f"{BIN}/{argv[0]}"] + argv[1:]
    if RUN_AS:
        command = ["/usr/sbin/runuser", "-u", RUN_AS, "--"] + command
    return subprocess.run(command, check=True, **kwargs)


def port_of(directory):
    with open(os.path.join(directory, "port")) as f:
        return int(f.read())


def socket_url(directory):
    return f"postgresql://{USER}@{directory.replace('/', '%2F')}:{port_of(directory)}/{DATABASE}"


def tcp_url(directory):
    return f"postgresql://{USER}@127.0.0.1:{port_of(directory)}/{DATABASE}"


def psql(directory, sql=None, database=DATABASE, stdin=None):
    argv = [f"{BIN}/psql", "-h", directory, "-p", str(port_of(directory)), "-U", USER, "-d", database,
            "-X", "-A", "-t", "-q", "-v", "ON_ERROR_STOP=1"]
    if sql is not None:
        argv += ["-c", sql]
    return subprocess.run(argv, check=True, stdout=subprocess.PIPE, stdin=stdin, text=True).stdout


def start(args):
    directory = os.path.abspath(args.dir)
    data = os.path.join(directory, "data")
    if not os.path.exists(os.path.join(data, "PG_VERSION")):
        os.makedirs(directory, mode=0o700, exist_ok=True)
        with open(os.path.join(directory, "port"), "w") as f:
            f.write(str(args.port))
        password = os.path.join(directory, "password")
        with open(password, "w") as f:
            f.write(f"bench-{os.urandom(8).hex()}\n")
        os.chmod(password, 0o600)
        if RUN_AS:
            # The server's user owns the directory; the password file stays ours (Ward reads it,
            # and refuses one another user owns) with a copy for initdb.
            entry = pwd.getpwnam(RUN_AS)
            os.chown(directory, entry.pw_uid, entry.pw_gid)
            os.chmod(directory, 0o755)
        pwfile = os.path.join(directory, "initdb-password")
        with open(password) as source, open(pwfile, "w") as f:
            f.write(source.read())
        if RUN_AS:
            os.chown(pwfile, entry.pw_uid, entry.pw_gid)
        server(["initdb", "-D", data, "-U", USER, "--pwfile", pwfile, "--auth-local=trust",
                "--auth-host=scram-sha-256", "--no-sync", "-E", "UTF8", "--locale=C"],
               stdout=subprocess.DEVNULL)
        os.unlink(pwfile)
    if os.path.exists(os.path.join(data, "postmaster.pid")):
        print(f"already running: {socket_url(directory)}")
        return
    # Durability is not measured here: fsync off makes the load minutes shorter. shared_buffers
    # holds the hot part of the patient table and its indexes, as a records server's would.
    options = (f"-k {directory} -p {port_of(directory)} -c listen_addresses=127.0.0.1 -c fsync=off "
               "-c synchronous_commit=off -c shared_buffers=512MB -c maintenance_work_mem=512MB "
               "-c max_wal_size=4GB -c checkpoint_timeout=30min")
    server(["pg_ctl", "-D", data, "-l", os.path.join(directory, "log"), "-w", "-t", "60", "-o", options,
            "start"], stdout=subprocess.DEVNULL)
    if not psql(directory, f"SELECT 1 FROM pg_database WHERE datname = '{DATABASE}'", database="postgres").strip():
        psql(directory, f"CREATE DATABASE {DATABASE}", database="postgres")
    print(f"started: {socket_url(directory)}  (loopback: {tcp_url(directory)}, password-file {directory}/password)")


def stop(args):
    directory = os.path.abspath(args.dir)
    if os.path.exists(os.path.join(directory, "data", "postmaster.pid")):
        server(["pg_ctl", "-D", os.path.join(directory, "data"), "-m", "fast", "-w", "stop"], stdout=subprocess.DEVNULL)
    print("stopped")


def tokens(text):
    """`PatientSearch.tokens`: lower case, diacritics removed, split on anything but letters and digits."""
    if text.isascii():
        words, word = [], []
        for ch in text:
            if ch.isascii() and ch.isalnum():
                word.append(ch.lower())
            elif word:
                words.append("".join(word))
                word = []
        if word:
            words.append("".join(word))
        return words
    folded = "".join(c for c in unicodedata.normalize("NFD", text.casefold()) if not unicodedata.combining(c))
    words, word = [], []
    for ch in folded:
        if ch.isalpha() or ch.isnumeric():
            word.append(ch)
        elif word:
            words.append("".join(word))
            word = []
    if word:
        words.append("".join(word))
    return words


def export_sql(table, columns):
    """A SELECT whose rows are COPY's text format already: NULL as \\N, a real in full (%.17g
    reads back as the same double), backslash, tab, newline and return escaped. The sqlite3
    shell prints it; Python formatting 30 million observations was the slow part of a load."""
    fields = []
    for c in columns:
        text = f'CAST("{c}" AS TEXT)'
        for raw, escaped in [("\\", "\\\\"), ("char(9)", "\\t"), ("char(10)", "\\n"), ("char(13)", "\\r")]:
            needle = raw if raw.startswith("char") else f"'{raw}'"
            text = f"replace({text}, {needle}, '{escaped}')"
        fields.append(f"""CASE WHEN "{c}" IS NULL THEN '\\N' WHEN typeof("{c}") = 'real' THEN printf('%.17g', "{c}") """
                      f"ELSE {text} END")
    return f"SELECT {', '.join(fields)} FROM {table}"


def copy_table(directory, database_file, table, columns):
    """sqlite3 -> psql COPY, through a pipe."""
    quoted = ", ".join(f'"{c}"' for c in columns)
    export = subprocess.Popen(["sqlite3", "-readonly", "-batch", "-noheader", "-list", "-separator", "\t",
                               database_file, export_sql(table, columns)], stdout=subprocess.PIPE)
    copy = subprocess.run([f"{BIN}/psql", "-h", directory, "-p", str(port_of(directory)), "-U", USER, "-d", DATABASE,
                           "-X", "-q", "-v", "ON_ERROR_STOP=1", "-c", f"COPY {table} ({quoted}) FROM STDIN"],
                          stdin=export.stdout, stdout=subprocess.PIPE, text=True)
    export.stdout.close()
    if export.wait() != 0 or copy.returncode != 0:
        sys.exit(f"copying {table} failed")


def copy_rows(directory, table, columns, rows):
    """Streams Python rows (text and integers) into `COPY table (columns) FROM STDIN`; returns how many."""
    quoted = ", ".join(f'"{c}"' for c in columns)
    argv = [f"{BIN}/psql", "-h", directory, "-p", str(port_of(directory)), "-U", USER, "-d", DATABASE, "-X", "-q",
            "-v", "ON_ERROR_STOP=1", "-c", f"COPY {table} ({quoted}) FROM STDIN"]
    process = subprocess.Popen(argv, stdin=subprocess.PIPE, text=True, bufsize=1 << 20)
    count = 0
    batch = []
    for row in rows:
        batch.append("\t".join(str(v).replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n")
                               .replace("\r", "\\r") for v in row))
        count += 1
        if len(batch) == 10000:
            process.stdin.write("\n".join(batch) + "\n")
            batch = []
    if batch:
        process.stdin.write("\n".join(batch) + "\n")
    process.stdin.close()
    if process.wait() != 0:
        sys.exit(f"COPY {table} failed")
    return count


def load(args):
    directory = os.path.abspath(args.dir)
    home = os.path.abspath(getattr(args, "from"))
    database_file = os.path.join(home, "records.sqlite")
    source = sqlite3.connect(f"file:{database_file}?mode=ro", uri=True)
    started = time.time()
    # A fresh database each time: a load stopped half-way leaves tables without their indexes.
    psql(directory, f"DROP DATABASE IF EXISTS {DATABASE}", database="postgres")
    psql(directory, f"CREATE DATABASE {DATABASE}", database="postgres")

    # The schema, made by Ward as a site's first connection makes it.
    work = tempfile.mkdtemp(prefix="ward-pg-load-")
    site = os.path.join(work, "site.toml")
    with open(site, "w") as f:
        f.write(SITE.format(url=socket_url(directory)))
    password = os.path.join(work, "password")
    with open(password, "w") as f:
        f.write("demo\n")
    os.chmod(password, 0o600)
    env = dict(os.environ, WARD_HOME=home, HOME=work)
    # Sessions no longer make the schema: the administrator's `ward db migrate` does.
    subprocess.run([args.ward, "db", "migrate", "--site", site], stdout=subprocess.DEVNULL, env=env, check=True)
    # A PostgreSQL site's users are in its ward_user table, not the home's credentials file: the
    # home's users (the demo's `demo`, whose short password `ward user add` would refuse) are
    # copied with their hashes, so that they sign on to both stores alike.
    with open(os.path.join(home, "credentials")) as f:
        for line in f:
            fields = line.rstrip("\n").split("\t")
            if len(fields) > 2 and not line.startswith(("#", "ward-credentials")):
                name, role, hash_ = (field.replace("'", "''") for field in fields[:3])
                psql(directory, f"INSERT INTO ward_user (name, role, password_hash) VALUES ('{name}', '{role}', '{hash_}')")
    subprocess.run([args.ward, "--site", site, "--user", "demo", "--password-file", password, "--batch", "-"],
                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, env=env, check=True)

    tables = [t for t in psql(directory, "SELECT tablename FROM pg_tables WHERE schemaname = 'public' "
                                         "AND tablename <> 'ward_migrations' ORDER BY tablename").split()]
    # Keep the definitions, drop them, copy, make them again: building an index once is far
    # cheaper than keeping it up to date through millions of inserts.
    constraints = [line.split("|", 2) for line in psql(directory, """
        SELECT c.conrelid::regclass, c.conname, pg_get_constraintdef(c.oid) FROM pg_constraint c
        JOIN pg_namespace n ON n.oid = c.connamespace
        WHERE n.nspname = 'public' AND c.contype IN ('p', 'u', 'f') AND c.conrelid::regclass::text <> 'ward_migrations'
        ORDER BY c.contype = 'f', c.contype""").splitlines() if line]
    indexes = [line.split("|", 1) for line in psql(directory, """
        SELECT indexname, indexdef FROM pg_indexes i WHERE schemaname = 'public' AND tablename <> 'ward_migrations'
        AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname)""").splitlines() if line]
    for table, name, _ in reversed(constraints):
        psql(directory, f'ALTER TABLE {table} DROP CONSTRAINT "{name}"')
    for name, _ in indexes:
        psql(directory, f'DROP INDEX "{name}"')

    in_home = {name for (name,) in source.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    for table in tables:
        # The site's own tables (its users, live sessions, audit trail) have no rows in a home.
        if table == "patient_name_token" or table not in in_home:
            continue
        columns = psql(directory, f"SELECT column_name FROM information_schema.columns WHERE table_name = '{table}' "
                                  "ORDER BY ordinal_position").split()
        columns = [c for c in columns if c != "name_words"]  # PostgreSQL's only: filled below
        begun = time.time()
        copy_table(directory, database_file, table, columns)
        count = psql(directory, f"SELECT count(*) FROM {table}").strip()
        print(f"{table}: {int(count):,} rows in {time.time() - begun:.0f} s", flush=True)

    begun = time.time()

    def name_tokens():
        for patient_id, given, family in source.execute("SELECT id, given, family FROM patient"):
            seen = set()
            for word in tokens(given) + tokens(family):
                if word not in seen:
                    seen.add(word)
                    yield (word, patient_id)

    count = copy_rows(directory, "patient_name_token", ["token", "patient_id"], name_tokens())
    print(f"patient_name_token: {count:,} rows in {time.time() - begun:.0f} s", flush=True)
    # Each patient's words again, in the column the GIN index of two-prefix searches covers,
    # as the schema's migration 5-name-words fills it.
    begun = time.time()
    psql(directory, """
        UPDATE patient SET name_words = words.tokens
        FROM (SELECT patient_id, array_agg(token ORDER BY token) AS tokens FROM patient_name_token
              GROUP BY patient_id) AS words
        WHERE patient.id = words.patient_id""")
    print(f"patient.name_words: {time.time() - begun:.0f} s", flush=True)

    begun = time.time()
    for table, name, definition in constraints:
        if not definition.startswith("FOREIGN KEY"):
            psql(directory, f'ALTER TABLE {table} ADD CONSTRAINT "{name}" {definition}')
    for _, definition in indexes:
        psql(directory, definition)
    for table, name, definition in constraints:
        if definition.startswith("FOREIGN KEY"):
            psql(directory, f'ALTER TABLE {table} ADD CONSTRAINT "{name}" {definition}')
    # Identity columns continue after the copied ids, as SQLite's rowids would.
    for table, column in [line.split("|") for line in psql(directory, """
            SELECT table_name, column_name FROM information_schema.columns
            WHERE table_schema = 'public' AND is_identity = 'YES'""").splitlines() if line]:
        psql(directory, f"SELECT setval(pg_get_serial_sequence('{table}', '{column}'), "
                        f"(SELECT coalesce(max({column}), 0) + 1 FROM {table}), false)")
    psql(directory, "VACUUM ANALYZE")
    print(f"indexes, constraints, VACUUM ANALYZE: {time.time() - begun:.0f} s")
    print(f"loaded {home} into {socket_url(directory)} in {time.time() - started:.0f} s")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("action", choices=["start", "stop", "url", "load"])
    parser.add_argument("--dir", required=True)
    parser.add_argument("--port", type=int, default=DEFAULT_PORT)
    parser.add_argument("--from", help="a `ward demo` home, for load")
    parser.add_argument("--ward", help="the ward binary, for load")
    args = parser.parse_args()
    if args.action == "start":
        start(args)
    elif args.action == "stop":
        stop(args)
    elif args.action == "url":
        print(socket_url(os.path.abspath(args.dir)))
        print(tcp_url(os.path.abspath(args.dir)))
    else:
        if not getattr(args, "from") or not args.ward:
            parser.error("load needs --from HOME and --ward PATH")
        load(args)


if __name__ == "__main__":
    main()
