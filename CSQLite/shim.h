// CSQLite: the one place batchfetch touches SQLite's C API (from Sources/BatchFetch/Cache only).
//
// Why this shim exists: SQLITE_TRANSIENT and SQLITE_STATIC are macros that cast an integer to a
// function pointer, which Swift cannot import. Everything is `static inline` and prefixed
// `csqlite_`, so the header adds no symbols of its own to link.
#ifndef CSQLITE_SHIM_H
#define CSQLITE_SHIM_H

#include <sqlite3.h>

#pragma clang assume_nonnull begin

/// Binds a blob that SQLite copies at once, so the caller's buffer may go away after the call.
static inline int csqlite_bind_blob_transient(sqlite3_stmt *statement, int index, const void *_Nullable bytes,
                                              int count) {
    return sqlite3_bind_blob(statement, index, bytes, count, SQLITE_TRANSIENT);
}

/// Binds UTF-8 text that SQLite copies at once.
static inline int csqlite_bind_text_transient(sqlite3_stmt *statement, int index, const char *text, int count) {
    return sqlite3_bind_text(statement, index, text, count, SQLITE_TRANSIENT);
}

#pragma clang assume_nonnull end

#endif
