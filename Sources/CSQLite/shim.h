// The C surface Ward needs from the system's SQLite, and what Swift cannot call or import:
// variadic sqlite3_db_config and the SQLITE_TRANSIENT cast.
#ifndef WARD_CSQLITE_SHIM_H
#define WARD_CSQLITE_SHIM_H

#include <sqlite3.h>

/* Double-quoted text is an identifier, never a string literal: a misspelt column name fails
   instead of comparing with its own name (as GRDB set every connection). */
static inline void ward_sqlite_disable_double_quoted_strings(sqlite3 *db) {
    sqlite3_db_config(db, SQLITE_DBCONFIG_DQS_DDL, 0, (void *)0);
    sqlite3_db_config(db, SQLITE_DBCONFIG_DQS_DML, 0, (void *)0);
}

/* Binds text SQLite copies before the call returns, length given: U+0000 and all. */
static inline int ward_sqlite_bind_text(sqlite3_stmt *statement, int index, const char *text, int count) {
    return sqlite3_bind_text(statement, index, text ? text : "", count, SQLITE_TRANSIENT);
}

/* Binds bytes SQLite copies before the call returns. */
static inline int ward_sqlite_bind_blob(sqlite3_stmt *statement, int index, const void *bytes, int count) {
    return sqlite3_bind_blob(statement, index, bytes ? bytes : "", count, SQLITE_TRANSIENT);
}

#endif
